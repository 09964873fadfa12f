/**
 * Extending flows with steps: `extendFlow(flow, [steps])` inserts one xstate state per step between
 * "identity established" (`linking`) and "session issued" (`issuing`) of a flow's machine. A step can
 * decide at once (`run`) or rest waiting for the user (`page` + `submit`): it renders a page whose form
 * posts back to `/callback/<provider>` with `step=<id>` (CSRF-checked), and resumes there. Its pending
 * state (attempts, its data) is part of the sealed snapshot in the flow store, with the flow's lifetime.
 * The extended machine is an ordinary statechart: diagrams and the inspector show the new states.
 *
 * A waiting step's page is the sign-in page's themed card by default: the step returns its form's
 * fields, the runtime adds the heading, the message of the last `retry`, the attempts left, the hidden
 * `step` and `csrfToken` fields, the button and a "Cancel and start over" link ({@link renderStepPage}).
 *
 * @example
 * ```ts
 * const terms = defineStep({
 *   id: "terms",
 *   when: ({ isNewUser }) => isNewUser === true,
 *   page: () => ({ title: "Terms of use", fields: `<label><input type="checkbox" name="accept" value="yes"> I accept</label>` }),
 *   submit: ({ params }) => params.accept === "yes" || { result: "retry", message: "Please accept the terms." },
 * })
 * const config = { flows: [extendFlow(oauthFlow, [terms])], providers: [GitHub] }
 * ```
 */
import { type AnyStateMachine, assign, createMachine } from "xstate"
import { AccessDenied } from "../errors.js"
import type { FlowUser, Identity } from "../machines/types.js"
import { AWAITING_INPUT } from "../machines/types.js"
import type { FlowContext, StepState } from "../machines/setup.js"
import type { Account, Awaitable, User } from "../types.js"
import { effect } from "./effects/effect.js"
import { type ServerState, stateKey } from "./server-state.js"
import { type EffectContext, type FlowDefinition, type FlowRoute, defineFlow } from "./flow.js"
import { type StepPageContent, type StepPageProps, renderStepPage } from "./pages/step.js"

export { renderStepPage }
export type { FlowPageProps, StepPageContent, StepPageProps } from "./pages/step.js"

/** What a step's functions are told about the sign-in in progress. */
export interface StepArgs {
  readonly user: User
  readonly account: Account | null
  readonly isNewUser: boolean
  readonly provider: string
  /** What this step kept so far in this flow (`data` returned by `submit`/`enter`). */
  readonly data: Record<string, unknown>
  /** The request being served (headers, URL), for steps that need it. */
  readonly request: { readonly url: URL; readonly method: string }
  /**
   * The config's server-state port (shared by every instance when it is `RedisServerState`): for steps
   * that need single use or counts across instances, e.g. a one-time code.
   */
  readonly serverState: ServerState
}

/** What `submit` answers: pass, stay on the page (with a message), or fail the flow. */
export type StepVerdict =
  | boolean
  | { readonly result: "pass" | "retry" | "fail"; readonly message?: string; readonly data?: Record<string, unknown> }

export interface StepDefinition {
  /** A state name: letters, digits, `_` and `-`. Also the `step` form field value. */
  readonly id: string
  /** Runs the step only when this says so (default: always). */
  readonly when?: (args: StepArgs) => Awaitable<boolean>
  /** Prepares the step before its page (e.g. fetch the user's TOTP secret); its result is `data`. */
  readonly enter?: (args: StepArgs) => Awaitable<Record<string, unknown> | undefined>
  /** For steps without a page: decide now (true passes; false or a throw fails the flow). */
  readonly run?: (args: StepArgs) => Awaitable<boolean>
  /** For steps that wait for the user: the page's form fields (in the themed card), or a whole page. */
  readonly page?: (props: StepPageProps) => StepPageContent
  /** For steps that wait: check what the form sent. */
  readonly submit?: (args: StepArgs & { params: Readonly<Record<string, unknown>>; attempt: number }) => Awaitable<StepVerdict>
  /**
   * Wrong answers allowed per user within `attemptWindow` before the step refuses. Counted on the server
   * (the config's `serverState`), so neither a new sign-in nor a replayed cookie starts it again; the
   * attempt after the last allowed one is refused even with the right answer. Default 5.
   */
  readonly maxAttempts?: number
  /** Seconds a user's wrong answers are counted for (from the first). Default 900 (15 minutes). */
  readonly attemptWindow?: number
}

/** A failed step: the flow ends, no session. An {@link AccessDenied}, shown as `error=AccessDenied`. */
export class StepFailed extends AccessDenied {}

const STEP_ID = /^[A-Za-z][\w-]{0,40}$/

/** Declares a step (validated). */
export function defineStep(step: StepDefinition): StepDefinition {
  if (!STEP_ID.test(step.id)) throw new TypeError(`defineStep: invalid id "${step.id}"`)
  if (!step.run && !(step.page && step.submit)) {
    throw new TypeError(`defineStep(${step.id}): give either run, or page and submit`)
  }
  return Object.freeze({ ...step })
}

function argsOf(ctx: EffectContext, identity: Identity, state: StepState | undefined): StepArgs {
  return {
    user: identity.user as User,
    account: identity.account as Account | null,
    isNewUser: identity.isNewUser === true,
    provider: ctx.providerId as string,
    data: state?.data ?? {},
    request: { url: ctx.req.url, method: ctx.req.method },
    serverState: ctx.config.serverState,
  }
}

interface EnterOutput {
  skip: boolean
  data: Record<string, unknown>
}

interface SubmitOutput {
  result: "pass" | "retry"
  message?: string
  data: Record<string, unknown>
}

/**
 * Counts one answer of the user at this step in the server-state port (a window of `attemptWindow`),
 * keyed by user, not by flow: a new sign-in or a replayed flow cookie does not start it again.
 */
async function countAttempt(ctx: EffectContext, step: StepDefinition, identity: Identity) {
  const user = identity.user as User
  const owner = user.id ?? user.email
  if (!owner) return undefined
  const key = stateKey("attempts", String(owner), step.id)
  const { count } = await ctx.config.serverState.count(key, (step.attemptWindow ?? 900) * 1000)
  return { key, count }
}

function stepActors(step: StepDefinition) {
  const enter = effect<EnterOutput, { identity: Identity; state?: StepState }>(async (ctx, input) => {
    const args = argsOf(ctx, input.identity, input.state)
    if (step.when && !(await step.when(args))) return { skip: true, data: {} }
    if (step.run) {
      if (!(await step.run(args))) throw new StepFailed(`The ${step.id} step refused the sign-in.`)
      return { skip: true, data: {} }
    }
    return { skip: false, data: (await step.enter?.(args)) ?? {} }
  })
  const submit = effect<SubmitOutput, { identity: Identity; state?: StepState; params: Record<string, unknown> }>(async (ctx, input) => {
    const max = step.maxAttempts ?? 5
    const counted = await countAttempt(ctx, step, input.identity)
    const attempt = Math.max((input.state?.attempts ?? 0) + 1, counted?.count ?? 0)
    if (attempt > max) throw new StepFailed(`The ${step.id} step refused attempt ${attempt} (at most ${max}).`)
    const args = { ...argsOf(ctx, input.identity, input.state), params: input.params, attempt }
    const verdict = await (step.submit as NonNullable<StepDefinition["submit"]>)(args)
    const normal = typeof verdict === "boolean" ? { result: verdict ? ("pass" as const) : ("retry" as const) } : verdict
    const data = { ...(input.state?.data ?? {}), ...(normal.data ?? {}) }
    if (normal.result === "pass") {
      if (counted) await ctx.config.serverState.reset(counted.key)
      return { result: "pass", data }
    }
    if (normal.result === "fail" || attempt >= max) {
      throw new StepFailed(`The ${step.id} step failed after ${attempt} attempt(s).`)
    }
    return { result: "retry", data, ...(normal.message ? { message: normal.message } : {}) }
  })
  return { [`${step.id}.enter`]: enter, [`${step.id}.submit`]: submit }
}

/** The steps' named guards (diagrams show their names). */
const stepGuards = {
  /** The step does not apply, or decided at once: go on without a page. */
  stepSkipped: (_: unknown, params: { output: EnterOutput }) => params.output.skip,
  /** The answer was accepted. */
  stepPassed: (_: unknown, params: { output: SubmitOutput }) => params.output.result === "pass",
}

/** `assign` for the untyped state configs built here: the event shape is known per transition. */
function update<E>(fn: (args: { context: FlowContext; event: E }) => Partial<FlowContext>) {
  return assign(fn as never)
}

type Config = Record<string, unknown> & { id: string; states: Record<string, Record<string, unknown>> }

const failed = (machineId: string) => ({
  target: `#${machineId}.failed`,
  actions: update<{ error?: unknown }>(({ event }) => ({ output: { ok: false, error: event.error } })),
})

/** The xstate state config of one step, continuing to `next` (a state id). */
function stepState(step: StepDefinition, machineId: string, next: string): Record<string, unknown> {
  const stateOf = (context: FlowContext) => context.steps[step.id]
  const keep = (context: FlowContext, patch: Partial<StepState>) => ({
    ...context.steps,
    [step.id]: { attempts: stateOf(context)?.attempts ?? 0, ...(stateOf(context) ?? {}), ...patch },
  })
  const page = (context: FlowContext, message?: string) => ({
    type: "page" as const,
    page: step.id,
    data: { attempt: stateOf(context)?.attempts ?? 0, ...(message ? { message } : {}) },
  })
  return {
    initial: "entering",
    states: {
      entering: {
        invoke: {
          id: `${step.id}.enter`,
          src: `${step.id}.enter`,
          input: ({ context }: { context: FlowContext }) => ({ identity: context.identity, state: stateOf(context) }),
          onDone: [
            {
              guard: { type: "stepSkipped", params: ({ event }: { event: { output: EnterOutput } }) => ({ output: event.output }) },
              target: `#${machineId}.${next}`,
            },
            {
              target: "waiting",
              actions: update<{ output: EnterOutput }>(({ context, event }) => ({
                steps: keep(context, { data: event.output.data }),
                reply: page(context),
              })),
            },
          ],
          onError: failed(machineId),
        },
      },
      waiting: { tags: [AWAITING_INPUT], on: { STEP: { target: "checking" } } },
      checking: {
        invoke: {
          id: `${step.id}.submit`,
          src: `${step.id}.submit`,
          input: ({ context, event }: { context: FlowContext; event: { params: Record<string, unknown> } }) => ({
            identity: context.identity,
            state: stateOf(context),
            params: event.params,
          }),
          onDone: [
            {
              guard: { type: "stepPassed", params: ({ event }: { event: { output: SubmitOutput } }) => ({ output: event.output }) },
              target: `#${machineId}.${next}`,
              actions: update<{ output: SubmitOutput }>(({ context, event }) => ({
                steps: keep(context, { data: event.output.data }),
                reply: null,
              })),
            },
            {
              target: "waiting",
              actions: update<{ output: SubmitOutput }>(({ context, event }) => {
                const steps = keep(context, { attempts: (stateOf(context)?.attempts ?? 0) + 1, data: event.output.data })
                return { steps, reply: page({ ...context, steps }, event.output.message) }
              }),
            },
          ],
          onError: failed(machineId),
        },
      },
    },
  }
}

/**
 * A flow with extra steps between `linking` and `issuing`, in order. The result is a new flow with the
 * same id (so it replaces the built-in in `config.flows`), new states, routes and pages.
 */
export function extendFlow(flow: FlowDefinition, steps: readonly StepDefinition[]): FlowDefinition {
  if (steps.length === 0) return flow
  const machine = flow.machine as AnyStateMachine
  const config = structuredCloneConfig(machine.config as Config)
  const linking = config.states.linking as { invoke?: { onDone?: { target?: string } } } | undefined
  if (!linking?.invoke?.onDone || !config.states.issuing) {
    throw new TypeError(`extendFlow(${flow.id}): the flow has no linking → issuing tail to extend`)
  }
  const ids = steps.map((s) => s.id)
  if (new Set(ids).size !== ids.length || ids.some((id) => id in config.states)) {
    throw new TypeError(`extendFlow(${flow.id}): step ids must be unique and not clash with states`)
  }
  linking.invoke.onDone = { ...linking.invoke.onDone, target: ids[0] as string }
  steps.forEach((step, i) => {
    config.states[step.id] = stepState(step, config.id, ids[i + 1] ?? "issuing")
  })
  const implementations = { ...machine.implementations, guards: { ...machine.implementations.guards, ...stepGuards } }
  const extended = createMachine(config as never, implementations as never) as AnyStateMachine
  const routes: FlowRoute[] = [
    ...flow.routes,
    ...steps
      .filter((s) => s.page)
      .map((s) => ({
        method: "POST" as const,
        action: "callback" as const,
        step: s.id,
        event: "STEP",
        csrf: true,
        params: "body" as const,
      })),
    // reloading a step's page (GET on the callback URL) shows it again; see the engine
    ...(flow.routes.some((r) => r.method === "GET" && r.action === "callback")
      ? []
      : [{ method: "GET" as const, action: "callback" as const, event: "SHOW", params: [] }]),
  ]
  const pages = { ...(flow.pages ?? {}) }
  for (const step of steps) {
    const page = step.page
    if (!page) continue
    pages[step.id] = (props) => {
      const full = { ...props, maxAttempts: step.maxAttempts ?? 5 }
      return renderStepPage(full, page(full))
    }
  }
  return defineFlow({
    ...flow,
    machine: extended,
    routes,
    pages,
    actors: { ...(flow.actors ?? {}), ...Object.assign({}, ...steps.map(stepActors)) },
  })
}

/** A copy of a machine config deep enough to edit its top-level states without touching the original. */
function structuredCloneConfig(config: Config): Config {
  const states: Record<string, Record<string, unknown>> = {}
  for (const [name, state] of Object.entries(config.states)) {
    const copy: Record<string, unknown> = { ...state }
    if (state.invoke && typeof state.invoke === "object" && !Array.isArray(state.invoke)) {
      copy.invoke = { ...(state.invoke as object) }
    }
    states[name] = copy
  }
  return { ...config, states }
}

export type { FlowUser }
