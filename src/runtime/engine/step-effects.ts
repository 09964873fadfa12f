/**
 * The effects of a step (`<id>.enter`, `<id>.submit`) and the guards its states branch on: the step's
 * functions called with the sign-in in progress, its wrong answers counted on the server.
 */
import type { Identity } from "../../machines/types.js"
import type { StepState } from "../../machines/setup.js"
import { contextEffect } from "./effects/effect.js"
import { stateKey } from "../limits/server-state.js"
import { fireEvent } from "../config/events.js"
import { chooseLanguage } from "../http/language.js"
import type { EffectContext } from "./define-flow.js"
import { type StepArgs, type StepDefinition, type StepFactors, StepFailed } from "./define-step.js"
import { activeTotpSecret } from "../factors/totp-secrets.js"
import { recoveryCodesLeft, redeemRecoveryCode } from "../factors/recovery-codes.js"
import type { User } from "../../types.js"

/** The user's factors for a step; a user without an id has none. */
function factorsOf(ctx: EffectContext, user: User): StepFactors {
  const userId = user.id
  return {
    activeTotpSecret: async () => (userId ? activeTotpSecret(ctx.config, userId) : null),
    redeemRecoveryCode: async (code) => {
      if (!userId || !(await redeemRecoveryCode(ctx.config, userId, code))) return false
      await fireEvent(ctx, "recoveryCodeUsed", { user, remaining: await recoveryCodesLeft(ctx.config, userId) })
      return true
    },
  }
}

function argsOf(ctx: EffectContext, identity: Identity, state: StepState | undefined): StepArgs {
  return {
    user: identity.user,
    account: identity.account,
    isNewUser: identity.isNewUser === true,
    provider: ctx.providerId ?? "",
    data: state?.data ?? {},
    request: { url: ctx.req.url, method: ctx.req.method },
    serverState: ctx.config.serverState,
    factors: factorsOf(ctx, identity.user),
    language: chooseLanguage(ctx.config.languages, ctx.req.headers).language,
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
 * keyed by user, not by flow: a new sign-in or a replayed flow cookie does not start it again.
 */
async function countAttempt(ctx: EffectContext, step: StepDefinition, identity: Identity): Promise<Counted | undefined> {
  const user = identity.user
  const owner = user.id ?? user.email
  if (!owner) return undefined
  const key = stateKey("attempts", String(owner), step.id)
  const { count } = await ctx.config.serverState.count(key, (step.attemptWindow ?? 900) * 1000)
  return { key, count }
}

type SubmitInput = { identity: Identity; state?: StepState; params: Record<string, unknown> }

/** The answer checked once counted: the attempt allowed, the step's `submit` asked, its verdict judged. */
async function answer(ctx: EffectContext, step: StepDefinition, input: SubmitInput): Promise<SubmitOutput> {
  const counted = await countAttempt(ctx, step, input.identity)
  const max = step.maxAttempts ?? 5
  const attempt = Math.max((input.state?.attempts ?? 0) + 1, counted?.count ?? 0)
  if (attempt > max) throw new StepFailed(`The ${step.id} step refused attempt ${attempt} (at most ${max}).`)
  if (!step.submit) throw new StepFailed(`The ${step.id} step has no submit.`)
  const verdict = await step.submit({ ...argsOf(ctx, input.identity, input.state), params: input.params, attempt })
  const normal = typeof verdict === "boolean" ? { result: verdict ? ("pass" as const) : ("retry" as const) } : verdict
  const data = normal.data === undefined ? (input.state?.data ?? {}) : { ...(input.state?.data ?? {}), ...normal.data }
  if (normal.result === "pass") {
    if (counted) await ctx.config.serverState.reset(counted.key)
    return { result: "pass", data }
  }
  if (normal.result === "fail" || attempt >= max) {
    throw new StepFailed(`The ${step.id} step failed after ${attempt} attempt(s).`)
  }
  return { result: "retry", data, ...(normal.message ? { message: normal.message } : {}) }
}

/** What `<id>.enter` answers when the step does not apply or decided at once. */
const SKIPPED: EnterOutput = Object.freeze({ skip: true, data: Object.freeze({}) })

/** The step applies: decide now (`run`) or prepare its page (`enter`). */
async function entered(step: StepDefinition, args: StepArgs): Promise<EnterOutput> {
  if (step.run) {
    if (!(await step.run(args))) throw new StepFailed(`The ${step.id} step refused the sign-in.`)
    return SKIPPED
  }
  return { skip: false, data: (await step.enter?.(args)) ?? {} }
}

export function stepActors(step: StepDefinition) {
  const enter = contextEffect<EnterOutput, { identity: Identity; state?: StepState }>(async (ctx, input) => {
    const args = argsOf(ctx, input.identity, input.state)
    if (step.when && !(await step.when(args))) return SKIPPED
    return entered(step, args)
  })
  const submit = contextEffect<SubmitOutput, SubmitInput>((ctx, input) => answer(ctx, step, input))
  return { [`${step.id}.enter`]: enter, [`${step.id}.submit`]: submit }
}

/** The steps' named guards (diagrams show their names). */
export const stepGuards = {
  /** The step does not apply, or decided at once: go on without a page. */
  stepSkipped: ({ event }: { event: { output: EnterOutput } }) => event.output.skip,
  /** The answer was accepted. */
  stepPassed: ({ event }: { event: { output: SubmitOutput } }) => event.output.result === "pass",
}
