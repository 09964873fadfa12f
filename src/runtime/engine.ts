/**
 * The flow engine: restore the flow's snapshot (or start it), provide its effects, send the request as
 * ONE event, run until the machine rests (`awaiting-input`) or ends, persist or clear, and turn its
 * reply into a response. Bounded by `flowTimeout`; a snapshot that no longer fits is a FlowStateError.
 */
import { randomUUID } from "node:crypto"
import { type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, createActor } from "xstate"
import { AuthError, FlowStateError } from "../errors.js"
import { AWAITING_INPUT, type FlowOutput, type Reply } from "../machines/types.js"
import { resolveCallbackUrl } from "./callback-url.js"
import { type Handled, type RequestContext, param } from "./context.js"
import type { OutCookie } from "./cookies.js"
import { bindEffectContext } from "./effects/effect.js"
import { csrfState } from "./csrf.js"
import type { FlowContext } from "../machines/setup.js"
import { stateName, xstateObserver } from "./inspect.js"
import { linkIdentity } from "./effects/link.js"
import { issueSession, signInGate } from "./effects/tail.js"
import type { EffectContext, FlowDefinition, FlowRoute } from "./flow.js"
import { pageNonce } from "./pages/csp.js"
import { errorResponse, pageUrl, replyResponse } from "./respond.js"
import { ENVELOPE_VERSION, type FlowEnvelope, type FlowStoreIO, claimEnvelope, envelopeNonce } from "./store.js"

function storeIO(ctx: RequestContext, flow: FlowDefinition): FlowStoreIO {
  const { name, options } = ctx.cookies.flow
  return {
    cookies: ctx.req.cookies,
    cookieName: `${name}.${ctx.providerId}`,
    cookieOptions: { ...options, ...(flow.cookieOptions?.(ctx) ?? {}) },
    secrets: ctx.config.secrets,
    now: ctx.now,
  }
}

function eventParams(ctx: RequestContext, route: FlowRoute): Record<string, unknown> {
  const spec = route.params ?? "body"
  if (spec === "body") return { ...(ctx.req.body ?? {}) }
  if (spec === "query") return Object.fromEntries(ctx.req.url.searchParams)
  const out: Record<string, unknown> = {}
  for (const key of spec) {
    const value = ctx.req.body?.[key] ?? ctx.req.url.searchParams.get(key) ?? undefined
    if (value !== undefined) out[key] = value
  }
  return out
}

/** Resolves once the actor rests, ends or fails; rejects after `ms`. */
function settle(actor: AnyActorRef, ms: number): Promise<AnyMachineSnapshot> {
  const restful = (s: AnyMachineSnapshot) => s.status !== "active" || s.hasTag(AWAITING_INPUT)
  const now = actor.getSnapshot() as AnyMachineSnapshot
  if (restful(now)) return Promise.resolve(now)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unsubscribe()
      reject(new FlowStateError(`The sign-in step did not finish within ${ms} ms.`))
    }, ms)
    const done = (s: AnyMachineSnapshot) => {
      clearTimeout(timer)
      sub.unsubscribe()
      resolve(s)
    }
    const sub = actor.subscribe({
      next: (s) => restful(s as AnyMachineSnapshot) && done(s as AnyMachineSnapshot),
      error: () => done(actor.getSnapshot() as AnyMachineSnapshot),
    })
  })
}

function checkEnvelope(envelope: FlowEnvelope, flow: FlowDefinition, ctx: RequestContext): void {
  if (envelope.flow !== flow.id || envelope.provider !== ctx.providerId) {
    throw new FlowStateError("The sign-in state belongs to another flow or provider.")
  }
  if (envelope.version !== flow.version) {
    throw new FlowStateError("The sign-in state was made by another version of this flow.")
  }
  if (envelope.exp * 1000 <= ctx.now) throw new FlowStateError("The sign-in state has expired.")
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

/** The callback URL a resumed flow fixed when it started (same origin only), if any. */
function keptCallbackUrl(envelope: FlowEnvelope | null, origin: string): string | undefined {
  const url = envelope?.callbackUrl
  if (url === undefined) return undefined
  try {
    return new URL(url).origin === origin ? url : undefined
  } catch {
    return undefined
  }
}

/** Whether the request names a callback URL as a parameter (not just the ambient callback-url cookie). */
function callbackUrlNamed(ctx: RequestContext): boolean {
  return param(ctx.req, "callbackUrl") !== undefined
}

/** Whether the flow rests on a page it renders itself (an extra step's page). */
function restsOnPage(snapshot: AnyMachineSnapshot, flow: FlowDefinition): boolean {
  const reply = (snapshot.context as { reply?: Reply | null }).reply
  return reply?.type === "page" && flow.pages?.[reply.page] !== undefined
}

/** A resting page of a flow (an extra step's page), rendered with a CSRF token and its form target. */
function renderFlowPage(
  ctx: RequestContext,
  flow: FlowDefinition,
  reply: Extract<Reply, { type: "page" }>,
  context: FlowContext,
  callbackUrl: string | undefined,
): { reply: Reply; cookies: OutCookie[] } {
  const csrf = csrfState(ctx)
  const render = flow.pages?.[reply.page] as NonNullable<FlowDefinition["pages"]>[string]
  const message = typeof reply.data?.message === "string" ? reply.data.message : undefined
  const nonce = pageNonce()
  const cancel = pageUrl(ctx, "signIn")
  if (callbackUrl) cancel.searchParams.set("callbackUrl", callbackUrl)
  const html = render({
    step: reply.page,
    action: `${ctx.authUrl}/callback/${encodeURIComponent(ctx.providerId as string)}`,
    csrfToken: csrf.token,
    attempt: context.steps?.[reply.page]?.attempts ?? 0,
    // an extra step's data, else what the flow's reply carries (e.g. the address a code went to)
    data: context.steps?.[reply.page]?.data ?? reply.data ?? {},
    theme: ctx.config.theme,
    nonce,
    cancelUrl: cancel.href,
    ...(message ? { message } : {}),
  })
  const data = { html, nonce, ...(callbackUrl ? { callbackUrl } : {}) }
  return { reply: { type: "page", page: reply.page, data }, cookies: csrf.cookie ? [csrf.cookie] : [] }
}

/** Runs one request through a flow. */
export async function runFlow(ctx: RequestContext, flow: FlowDefinition, route: FlowRoute): Promise<Handled> {
  const store = ctx.config.flowStore
  const io = storeIO(ctx, flow)
  const hadState = ctx.req.cookies[io.cookieName] !== undefined || ctx.req.cookies[`${io.cookieName}.0`] !== undefined
  const cleanup = async (): Promise<OutCookie[]> => {
    try {
      return [...(await store.clear(io))]
    } catch (err) {
      ctx.config.logger.error(new FlowStateError("The sign-in state could not be cleared.", { err }))
      return []
    }
  }
  if (!route.start && flow.intercept) {
    const intercepted = await flow.intercept(ctx)
    if (intercepted) return intercepted
  }
  let actor: AnyActorRef | undefined
  const { emit, raw } = ctx.config.inspectors
  let flowId = "unknown"
  const base = () => ({ flowId, flow: flow.id, provider: ctx.providerId as string })
  try {
    const envelope = route.start ? null : await store.load(io)
    if (!route.start) {
      if (!envelope) throw new FlowStateError("No sign-in is in progress (or it was already used).")
      checkEnvelope(envelope, flow, ctx)
      await claimEnvelope(envelope, ctx.config.serverState, ctx.now)
    }
    flowId = envelope?.flowId ?? randomUUID()
    emit?.({ ...base(), at: Date.now(), type: "request", method: ctx.req.method, action: ctx.action, event: route.event })
    const kept = keptCallbackUrl(envelope, ctx.origin)
    // A flow whose start named no callbackUrl resolves it when it resumes, as Auth.js does: Auth.js'
    // passkey client posts it with the response. Validated like any other (same origin).
    const callback = kept ? { url: kept } : await resolveCallbackUrl(ctx)
    const ectx: EffectContext = { ...ctx, callbackUrl: callback.url }
    const machine = providedMachine(flow)
    const named = callbackUrlNamed(ctx)
    const input = { provider: ctx.providerId as string, now: ctx.now }
    const keptUrl = kept ?? (named ? callback.url : undefined)
    try {
      const inspect = emit || raw ? { inspect: xstateObserver(emit, raw, base) } : {}
      actor = createActor(machine, envelope ? { snapshot: envelope.snapshot as never, input, ...inspect } : { input, ...inspect })
      bindEffectContext(actor.system, ectx)
      actor.start()
    } catch (err) {
      throw new FlowStateError("The sign-in state does not fit this flow any more.", { err })
    }
    const before = actor.getSnapshot() as AnyMachineSnapshot
    if (before.status !== "active" || !before.hasTag(AWAITING_INPUT)) {
      throw new FlowStateError("The sign-in state is not waiting for input.")
    }
    const event = { type: route.event, params: eventParams(ctx, route), now: ctx.now }
    // a reload (GET) of a step's page that the step does not take as an answer shows the page again
    const reshow = ctx.req.method === "GET" && !before.can(event) && restsOnPage(before, flow)
    if (!reshow) {
      actor.send(event)
      if (actor.getSnapshot() === before) throw new FlowStateError(`This step does not accept "${route.event}".`)
    }
    const after = reshow ? before : await settle(actor, ctx.config.flowTimeout)
    ctx.config.logger.debug("flow", { flow: flow.id, event: route.event, state: after.value, status: after.status })
    const extra = "cookie" in callback && callback.cookie ? [callback.cookie] : []

    if (after.status === "done") {
      const output = after.output as FlowOutput
      const errorType = output.ok ? undefined : output.error instanceof AuthError ? output.error.type : "Error"
      emit?.({ ...base(), at: Date.now(), type: "end", state: stateName(after.value), ok: output.ok, ...(errorType ? { errorType } : {}) })
      const cleared = hadState ? await cleanup() : []
      if (!output.ok) return errorResponse(ctx, output.error, cleared)
      return replyResponse(ctx, output.reply, [...cleared, ...extra])
    }
    if (after.status === "error") throw after.error
    const saved = await store.save(
      {
        v: ENVELOPE_VERSION,
        flow: flow.id,
        flowId,
        provider: ctx.providerId as string,
        version: flow.version,
        exp: envelope?.exp ?? Math.floor(ctx.now / 1000) + flow.ttl,
        nonce: envelopeNonce(),
        ...(keptUrl ? { callbackUrl: keptUrl } : {}),
        snapshot: actor.getPersistedSnapshot(),
      },
      io,
    )
    emit?.({
      ...base(),
      at: Date.now(),
      type: "persist",
      state: stateName(after.value),
      expiresAt: (envelope?.exp ?? Math.floor(ctx.now / 1000) + flow.ttl) * 1000,
    })
    const reply = (after.context as { reply?: Reply | null }).reply
    if (!reply) throw new FlowStateError(`Flow "${flow.id}" rested without a reply.`)
    if (reply.type === "page" && flow.pages?.[reply.page]) {
      const page = renderFlowPage(ctx, flow, reply, after.context as FlowContext, keptUrl)
      return replyResponse(ctx, page.reply, [...saved, ...extra, ...page.cookies])
    }
    return replyResponse(ctx, reply, [...saved, ...extra])
  } catch (err) {
    const error = err instanceof AuthError ? err : new FlowStateError("The sign-in step failed.", { err })
    emit?.({ ...base(), at: Date.now(), type: "end", state: "failed", ok: false, errorType: error.type })
    return errorResponse(ctx, error, hadState ? await cleanup() : [])
  } finally {
    actor?.stop()
  }
}
