/**
 * The effects of a step (`<id>.enter`, `<id>.submit`) and the guards its states branch on: the step's
 * functions called with the sign-in in progress, its wrong answers counted on the server.
 */
import type { Identity } from "../machines/types.js"
import type { StepState } from "../machines/setup.js"
import { effect } from "./effects/effect.js"
import { isPromiseLike } from "./awaitable.js"
import { stateKey } from "./server-state.js"
import { syncVerbs } from "./server-state-memory.js"
import type { EffectContext } from "./flow.js"
import { type StepArgs, type StepDefinition, StepFailed } from "./step-definition.js"

function argsOf(ctx: EffectContext, identity: Identity, state: StepState | undefined): StepArgs {
  return {
    user: identity.user,
    account: identity.account,
    isNewUser: identity.isNewUser === true,
    provider: ctx.providerId ?? "",
    data: state?.data ?? {},
    request: { url: ctx.req.url, method: ctx.req.method },
    serverState: ctx.config.serverState,
  }
}

export interface EnterOutput {
  skip: boolean
  data: Record<string, unknown>
}

export interface SubmitOutput {
  result: "pass" | "retry"
  message?: string
  data: Record<string, unknown>
}

/** An answer counted: its key in the server-state port and the count in the window. */
interface Counted {
  readonly key: string
  readonly count: number
}

/**
 * Counts one answer of the user at this step in the server-state port (a window of `attemptWindow`),
 * keyed by user, not by flow: a new sign-in or a replayed flow cookie does not start it again. At once
 * with the in-memory port (its synchronous verbs), else a promise.
 */
function countAttempt(ctx: EffectContext, step: StepDefinition, identity: Identity): Counted | undefined | Promise<Counted> {
  const user = identity.user
  const owner = user.id ?? user.email
  if (!owner) return undefined
  const key = stateKey("attempts", String(owner), step.id)
  const windowMs = (step.attemptWindow ?? 900) * 1000
  const sync = syncVerbs(ctx.config.serverState)
  if (sync) return { key, count: sync.count(key, windowMs).count }
  return ctx.config.serverState.count(key, windowMs).then(({ count }) => ({ key, count }))
}

type SubmitInput = { identity: Identity; state?: StepState; params: Record<string, unknown> }

/** The answer checked once counted: the attempt allowed, the step's `submit` asked. */
function answer(
  ctx: EffectContext,
  step: StepDefinition,
  input: SubmitInput,
  counted: Counted | undefined,
): SubmitOutput | Promise<SubmitOutput> {
  const max = step.maxAttempts ?? 5
  const attempt = Math.max((input.state?.attempts ?? 0) + 1, counted?.count ?? 0)
  if (attempt > max) throw new StepFailed(`The ${step.id} step refused attempt ${attempt} (at most ${max}).`)
  if (!step.submit) throw new StepFailed(`The ${step.id} step has no submit.`)
  const identity = input.identity
  // one literal (not argsOf's object spread into another): one shape, one object
  const verdict = step.submit({
    user: identity.user,
    account: identity.account,
    isNewUser: identity.isNewUser === true,
    provider: ctx.providerId ?? "",
    data: input.state?.data ?? {},
    request: { url: ctx.req.url, method: ctx.req.method },
    serverState: ctx.config.serverState,
    params: input.params,
    attempt,
  })
  return isPromiseLike(verdict)
    ? Promise.resolve(verdict).then((v) => judged(ctx, step, input, counted, attempt, v))
    : judged(ctx, step, input, counted, attempt, verdict)
}

/** The step's verdict: a pass resets the count; a failure, or a wrong answer at the last attempt, fails. */
function judged(
  ctx: EffectContext,
  step: StepDefinition,
  input: SubmitInput,
  counted: Counted | undefined,
  attempt: number,
  verdict: Awaited<ReturnType<NonNullable<StepDefinition["submit"]>>>,
): SubmitOutput | Promise<SubmitOutput> {
  const normal = typeof verdict === "boolean" ? { result: verdict ? ("pass" as const) : ("retry" as const) } : verdict
  const data = normal.data === undefined ? (input.state?.data ?? {}) : { ...(input.state?.data ?? {}), ...normal.data }
  if (normal.result === "pass") {
    const passed: SubmitOutput = { result: "pass", data }
    if (!counted) return passed
    const sync = syncVerbs(ctx.config.serverState)
    if (!sync) return ctx.config.serverState.reset(counted.key).then(() => passed)
    sync.reset(counted.key)
    return passed
  }
  if (normal.result === "fail" || attempt >= (step.maxAttempts ?? 5)) {
    throw new StepFailed(`The ${step.id} step failed after ${attempt} attempt(s).`)
  }
  return { result: "retry", data, ...(normal.message ? { message: normal.message } : {}) }
}

/** What `<id>.enter` answers when the step does not apply or decided at once. */
const SKIPPED: EnterOutput = Object.freeze({ skip: true, data: Object.freeze({}) })

/** The step applies: decide now (`run`) or prepare its page (`enter`). At once when the step's function answers at once. */
function entered(step: StepDefinition, args: StepArgs): EnterOutput | Promise<EnterOutput> {
  if (step.run) {
    const passed = step.run(args)
    return isPromiseLike(passed) ? Promise.resolve(passed).then((ok) => ran(step, ok)) : ran(step, passed)
  }
  if (!step.enter) return { skip: false, data: {} }
  const data = step.enter(args)
  return isPromiseLike(data) ? Promise.resolve(data).then((d) => ({ skip: false, data: d ?? {} })) : { skip: false, data: data ?? {} }
}

function ran(step: StepDefinition, passed: boolean): EnterOutput {
  if (!passed) throw new StepFailed(`The ${step.id} step refused the sign-in.`)
  return SKIPPED
}

export function stepActors(step: StepDefinition) {
  // no async function: a step whose functions answer at once runs without a promise
  const enter = effect<EnterOutput, { identity: Identity; state?: StepState }>((ctx, input) => {
    const args = argsOf(ctx, input.identity, input.state)
    if (!step.when) return entered(step, args)
    const applies = step.when(args)
    if (isPromiseLike(applies)) return Promise.resolve(applies).then((yes) => (yes ? entered(step, args) : SKIPPED))
    return applies ? entered(step, args) : SKIPPED
  })
  const submit = effect<SubmitOutput, SubmitInput>((ctx, input) => {
    const counted = countAttempt(ctx, step, input.identity)
    return counted instanceof Promise ? counted.then((c) => answer(ctx, step, input, c)) : answer(ctx, step, input, counted)
  })
  return { [`${step.id}.enter`]: enter, [`${step.id}.submit`]: submit }
}

/** The steps' named guards (diagrams show their names). */
export const stepGuards = {
  /** The step does not apply, or decided at once: go on without a page. */
  stepSkipped: ({ event }: { event: { output: EnterOutput } }) => event.output.skip,
  /** The answer was accepted. */
  stepPassed: ({ event }: { event: { output: SubmitOutput } }) => event.output.result === "pass",
}
