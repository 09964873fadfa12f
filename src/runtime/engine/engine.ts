/**
 * The flow engine, in four parts, each testable alone: `loadFlow` (flow-load.ts: the resting flow's
 * envelope, checked and claimed once, or none for a start; the callback URL), `runMachine` (restore or
 * start the machine, send the request as ONE event, run until it rests at `awaiting-input` or ends,
 * bounded by `flowTimeout`), `persistFlow` (flow-persist.ts: save a resting flow, clear an ended one) and
 * `respondFlow` (flow-respond.ts). `runFlow` strings them together and reports each to the inspectors.
 */
import type { AnyMachineSnapshot, AnyStateMachine, InspectionEvent } from "xstate"
import { AuthError, FlowStateError } from "../../errors.js"
import { parseForm } from "../http/body.js"
import type { FlowContext } from "../../machines/setup.js"
import { AWAITING_INPUT, type FlowOutput, type Reply } from "../../machines/types.js"
import { type Handled, type RequestContext, param, withCallbackUrl } from "../http/context.js"
import { requestServices } from "./effects/services.js"
import { FlowRun, type RunOptions } from "./actor-run.js"
import { linkIdentity } from "./effects/link.js"
import { issueSession, signInGate } from "./effects/tail.js"
import type { FlowDefinition, FlowRoute } from "./define-flow.js"
import { clearFlow, expiryOf, hasState, persistFlow } from "./persist.js"
import { type Outcome, respondFlow } from "./outcome.js"
import { stateName, xstateObserver } from "./inspection.js"
import { isPlainObject } from "../config/plain-object.js"
import { errorResponse } from "../http/respond.js"
import { startedElsewhere } from "./started-elsewhere.js"
import { type Loaded, loadFlow, storeIO } from "./load.js"

export type { Outcome }
export { expiryOf, persistFlow }

/** The event's params: only the request fields the route declares. */
export function eventParams(ctx: RequestContext, route: FlowRoute): Record<string, unknown> {
  const spec = route.params ?? []
  if (spec === "body") return { ...(ctx.req.body ?? {}) }
  // the query as its `searchParams` read it (a form's grammar), without making them
  if (spec === "query") return parseForm(ctx.req.url.search.slice(1))
  const out: Record<string, unknown> = {}
  for (const key of spec) {
    // a body field as sent (a JSON body's may be any value), else the query's, read as `param` reads it
    const value = ctx.req.body?.[key] ?? param(ctx.req, key)
    if (value !== undefined) out[key] = value
  }
  return out
}

const provided = new WeakMap<FlowDefinition, AnyStateMachine>()

/** The flow's machine with the tail's and the flow's own effects, provided once per flow. */
function providedMachine(flow: FlowDefinition): AnyStateMachine {
  let machine = provided.get(flow)
  if (!machine) {
    machine = flow.machine.provide({ actors: { signInGate, linkIdentity, issueSession, ...(flow.actors ?? {}) } })
    provided.set(flow, machine)
  }
  return machine
}

/** Whether the flow rests on a page it renders itself (an extra step's page). */
function restsOnPage(snapshot: AnyMachineSnapshot, flow: FlowDefinition): boolean {
  const reply = (snapshot.context as { reply?: Reply | null }).reply
  return reply?.type === "page" && flow.pages?.[reply.page] !== undefined
}

/**
 * run: the machine restored from the envelope's snapshot (or started), the request sent as ONE event
 * (its params only those the route declares), run until it rests or ends. A GET while the flow rests on
 * one of its own pages is a reload and shows the page again; the machine is not sent its event.
 */
export async function runMachine(
  ctx: RequestContext,
  flow: FlowDefinition,
  route: FlowRoute,
  loaded: Loaded,
  inspect?: (event: InspectionEvent) => void,
): Promise<Outcome> {
  const run = startRun(ctx, flow, loaded, inspect)
  try {
    const { before } = run
    if (before.status !== "active" || !before.hasTag(AWAITING_INPUT)) {
      throw new FlowStateError("The sign-in state is not waiting for input.")
    }
    // a page's form posts its answer, so a GET while the flow rests on its page is a reload: the page
    // again, whatever the machine would do with the event
    if (ctx.req.method === "GET" && restsOnPage(before, flow)) return outcomeOf(ctx, flow, route, run, before)
    const event = { type: route.event, params: eventParams(ctx, route), now: ctx.now }
    if (before.can(event)) return outcomeOf(ctx, flow, route, run, await run.send(event))
    throw new FlowStateError(`This step does not accept "${route.event}".`)
  } finally {
    run.stop()
  }
}

function startRun(ctx: RequestContext, flow: FlowDefinition, loaded: Loaded, inspect?: (event: InspectionEvent) => void): FlowRun {
  const options: RunOptions = {
    persisted: loaded.envelope ? loaded.envelope.snapshot : undefined,
    input: { provider: ctx.providerId as string, now: ctx.now },
    ctx: withCallbackUrl(ctx, loaded.callback.url),
    timeout: ctx.config.flowTimeout,
    ...(inspect ? { inspect } : {}),
  }
  try {
    return new FlowRun(providedMachine(flow), options)
  } catch (err) {
    throw new FlowStateError("The sign-in state does not fit this flow any more.", { err })
  }
}

/** What the run came to (resting or ended), or its failure. */
function outcomeOf(ctx: RequestContext, flow: FlowDefinition, route: FlowRoute, run: FlowRun, after: AnyMachineSnapshot): Outcome {
  ctx.config.logger.debug("flow", { flow: flow.id, event: route.event, state: after.value, status: after.status })
  const state = stateName(after.value)
  if (after.status === "done") return { status: "ended", state, output: after.output as FlowOutput }
  if (after.status === "error") throw after.error
  return { status: "resting", state, snapshot: withoutSpentReply(run.persist()), context: after.context as FlowContext }
}

/**
 * The persisted snapshot without a redirect or JSON reply: either answers the request that made it and
 * is not read again (the next step sets its own reply; a page reply stays, a reload shows the page
 * again), and would only grow the sealed flow cookie (an OAuth authorization URL, passkey options).
 */
function withoutSpentReply(persisted: unknown): unknown {
  if (!isPlainObject(persisted) || !isPlainObject(persisted.context)) return persisted
  const { context } = persisted
  if (!isPlainObject(context.reply) || (context.reply.type !== "redirect" && context.reply.type !== "json")) return persisted
  return { ...persisted, context: { ...context, reply: null } }
}

/** Runs one request through a flow: load, run, persist, respond; any failure is the error page. */
export async function runFlow(ctx: RequestContext, flow: FlowDefinition, route: FlowRoute): Promise<Handled> {
  if (!route.start && flow.intercept) {
    const intercepted = await flow.intercept(requestServices(ctx))
    if (intercepted) return intercepted
  }
  const io = storeIO(ctx, flow)
  const { emit, raw } = ctx.config.inspectors
  // what every inspection event of this run carries
  const tag = { flowId: "unknown", flow: flow.id, provider: ctx.providerId as string }
  try {
    const loaded = await loadFlow(ctx, flow, route, io)
    tag.flowId = loaded.flowId
    emit?.({ ...tag, at: Date.now(), type: "request", method: ctx.req.method, action: ctx.action, event: route.event })
    const outcome = await runMachine(ctx, flow, route, loaded, emit || raw ? xstateObserver(emit, raw, () => tag) : undefined)
    const cookies = await persistFlow(ctx, flow, loaded, outcome, io)
    if (outcome.status === "ended") {
      const { output } = outcome
      const errorType = output.ok ? undefined : output.error instanceof AuthError ? output.error.type : "Error"
      emit?.({ ...tag, at: Date.now(), type: "end", state: outcome.state, ok: output.ok, ...(errorType ? { errorType } : {}) })
    } else {
      emit?.({ ...tag, at: Date.now(), type: "persist", state: outcome.state, expiresAt: expiryOf(ctx, flow, loaded) * 1000 })
    }
    return respondFlow(ctx, flow, loaded, outcome, cookies)
  } catch (err) {
    const ours = hasState(ctx, io)
    const error = startedElsewhere(ctx, err instanceof AuthError ? err : new FlowStateError("The sign-in step failed.", { err }), ours)
    emit?.({ ...tag, at: Date.now(), type: "end", state: "failed", ok: false, errorType: error.type })
    return errorResponse(ctx, error, ours ? await clearFlow(ctx, io) : [])
  }
}
