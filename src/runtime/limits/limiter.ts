/**
 * The limiter (docs/security.md "Limits"): before a request is routed, the rules that apply to it are counted in
 * the server-state port (in parallel, one `count` each, one key each); a request over any rule does no
 * work and gets the refusal answer. The account a rule counts is the one the flow itself resolves
 * (`account-key.ts`). Password attempts are counted per (account, client), so a stranger's failures
 * lock only the stranger's client; a success resets that pair.
 */
import { RateLimitUnavailable, RateLimited } from "../../errors.js"
import type { RateLimitRequest, RateLimitRule, RateLimitRuleName } from "../../types.js"
import { type Handled, type RequestContext, param } from "../http/context.js"
import { fireEvent } from "../config/events.js"
import { accountHash, clientKey } from "./client.js"
import type { ResolvedRateLimit } from "./rules.js"
import { refusal } from "./refusal.js"
import { errorResponse } from "../http/respond.js"
import { stateKey } from "./server-state.js"
import { routeLimitOf } from "../config/declarations.js"

/** One rule to count for this request. */
interface Check {
  readonly name: RateLimitRuleName
  readonly rule: RateLimitRule
  readonly key: string
  readonly client: string | undefined
  /** The account's hash, on per-account rules. */
  readonly account?: string
  /** For "distinct accounts": the (client, account) claim that decides whether this hit counts. */
  readonly distinct?: string
}

type Counted = { check: Check; count: number; resetAt: number }
type Outcome = Counted | { check: Check; failed: unknown } | null

/** What the gate decided: a refusal, or a hook to run once the request was handled. */
export interface Gate {
  readonly refused?: Handled
  readonly settle?: (handled: Handled) => Promise<void>
}

/** The gate of a request no rule counts, or one let through with nothing to do afterwards. */
export const OPEN: Gate = {}
/** The session, account and second-factor management endpoints a client may POST to only so often. */
const ACCOUNT_ACTIONS: ReadonlySet<string> = new Set([
  "revoke-session",
  "revoke-other-sessions",
  "unlink-account",
  "totp-enrol",
  "totp-confirm",
  "totp-remove",
  "passkey-rename",
  "passkey-delete",
  "recovery-codes",
])

/** The rules a request falls under (names), and the account its per-account rules count. */
interface Rules {
  readonly names: readonly RateLimitRuleName[]
  readonly account: string | undefined
}

const NO_RULES: Rules = { names: [], account: undefined }
const CLIENT: readonly RateLimitRuleName[] = ["client"]
const ACCOUNT_CLIENT: readonly RateLimitRuleName[] = ["client", "accountClient"]
const BACKCHANNEL: readonly RateLimitRuleName[] = ["client", "backchannelClient"]
const STEP: readonly RateLimitRuleName[] = ["client", "stepClient"]
const PASSWORD: readonly RateLimitRuleName[] = ["client", "passwordClient"]

/** The account key the flow will use, or undefined when the submission names none it would accept. */
function resolved(resolve: () => string | undefined): string | undefined {
  try {
    return resolve()
  } catch {
    // the flow refuses such a submission without signing in or mailing: the client rules count it
    return undefined
  }
}

/** The rules a request falls under, before hooks: `client`, and the limit its flow declares on its route. */
function rulesFor(ctx: RequestContext): Rules {
  const { action } = ctx
  const method = ctx.req.method
  if (action === "session" && method === "GET") return NO_RULES
  const route: string = action // authchart's own actions are not Auth.js' AuthAction
  if (route === "backchannel-logout") return { names: BACKCHANNEL, account: undefined }
  if (method === "POST" && ACCOUNT_ACTIONS.has(action)) return { names: ACCOUNT_CLIENT, account: undefined }
  const step = param(ctx.req, "step")
  const provider = ctx.provider
  const limit = provider && routeLimitOf(ctx.config, provider, method, action, step)
  if (limit) {
    const account = limit.account && resolved(() => limit.account?.(provider, ctx.req.body))
    return { names: [...CLIENT, ...limit.rules], account }
  }
  // an answer to an extra step (a TOTP or recovery code) whose row declares no limit, whatever the flow
  if (action === "callback" && method === "POST" && step !== undefined) return { names: STEP, account: undefined }
  // a re-authentication's answer is a password or a code: counted per client like a password sign-in
  if (route === "reauth" && method === "POST") return { names: PASSWORD, account: undefined }
  return { names: CLIENT, account: undefined }
}

/** The rules that count an account (the others count the client). */
const ACCOUNT_RULES: ReadonlySet<RateLimitRuleName> = new Set([
  "passwordAccount",
  "passwordAccountWide",
  "passwordAccounts",
  "emailAddress",
])

/**
 * The port key of a rule. Per-account rules are owned by the account's hash (one Cluster slot per
 * account); `passwordAccount` adds the client, so each (account, client) pair has its own count.
 */
function keyOf(name: RateLimitRuleName, hashed: string | undefined, client: string | undefined): string | undefined {
  if (name === "passwordAccount") return hashed === undefined ? undefined : stateKey("rl", hashed, name, client ?? "")
  if (name === "passwordAccountWide" || name === "emailAddress") return hashed === undefined ? undefined : stateKey("rl", hashed, name)
  return client === undefined ? undefined : stateKey("rl", client, name)
}

/** The checks of this request: rules in force, not skipped by the hook, with a client where one is needed. */
function checksFor(ctx: RequestContext, limits: ResolvedRateLimit): readonly Check[] {
  const { names: ruleNames, account } = rulesFor(ctx)
  const ip = ctx.req.clientIp ? clientKey(ctx.req.clientIp) : undefined
  const checks: Check[] = []
  const hashed = account === undefined ? undefined : accountHash(account, ctx.config.secrets[0])
  for (const name of ruleNames) {
    const rule = limits.rules.get(name)
    if (!rule) continue
    let client = ip
    if (limits.skip || limits.key) {
      const seen: RateLimitRequest = {
        rule: name,
        client: ip,
        method: ctx.req.method,
        action: ctx.action,
        providerId: ctx.providerId,
        headers: ctx.req.headers,
      }
      if (limits.skip?.(seen)) continue
      client = limits.key?.(seen) ?? ip
    }
    const key = keyOf(name, hashed, client)
    if (key === undefined) continue
    const perAccount = ACCOUNT_RULES.has(name) ? hashed : undefined
    if (name === "passwordAccounts" && client !== undefined && hashed !== undefined) {
      checks.push({ name, rule, key, client, account: perAccount, distinct: stateKey("rl", client, name, hashed) })
    } else {
      checks.push({ name, rule, key, client, account: perAccount })
    }
  }
  return checks
}

/** Counts one check: one `count` (a "distinct accounts" check first claims its pair). */
function evaluate(ctx: RequestContext, check: Check): Promise<Outcome> {
  if (check.distinct) return evaluateDistinct(ctx, check, check.distinct)
  return ctx.config.serverState.count(check.key, check.rule.window * 1000).then(
    ({ count, resetAt }) => ({ check, count, resetAt }),
    (err: unknown) => ({ check, failed: err }),
  )
}

/** A "distinct accounts" hit counts only the first time this (client, account) is seen in the window. */
async function evaluateDistinct(ctx: RequestContext, check: Check, distinct: string): Promise<Outcome> {
  const state = ctx.config.serverState
  const windowMs = check.rule.window * 1000
  try {
    if (!(await state.claim(distinct, windowMs))) return null
    const { count, resetAt } = await state.count(check.key, windowMs)
    // a refused new account is not remembered as tried: retrying it is refused again
    if (count > check.rule.max) await state.reset(distinct)
    return { check, count, resetAt }
  } catch (err) {
    return { check, failed: err }
  }
}

/** Logs and announces a lockout: once, on the first refused hit of the window. */
async function lockedOut(ctx: RequestContext, check: Check, retryAfter: number): Promise<void> {
  const { name, client, account } = check
  ctx.config.logger.error(
    new RateLimited(`The ${name} rate limit is refusing requests for ${retryAfter} s.`, { rule: name, client, account }),
  )
  await fireEvent(ctx, "rateLimited", { rule: name, client, account, retryAfter })
}

/**
 * Counts the request under every rule that applies. Refuses (with the longest wait) when one is over
 * its maximum; when the port fails, refuses if a failed rule fails closed, else lets the request through.
 */
export async function rateLimitGate(ctx: RequestContext): Promise<Gate> {
  const limits = ctx.config.rateLimit
  if (!limits) return OPEN
  const checks = checksFor(ctx, limits)
  if (checks.length === 0) return OPEN
  const outcomes = await Promise.all(checks.map((check) => evaluate(ctx, check)))

  const failed = outcomes.filter((o): o is Extract<Outcome, { failed: unknown }> => o !== null && "failed" in o)
  if (failed.length > 0) {
    const closed = failed.some((o) => limits.failClosed.has(o.check.name))
    const names = failed.map((o) => o.check.name).join(", ")
    const error = new RateLimitUnavailable(`The rate-limit store failed (${names}); ${closed ? "refused" : "let through"}.`, {
      err: failed[0]?.failed,
    })
    if (closed) return { refused: errorResponse(ctx, error) }
    ctx.config.logger.error(error)
  }

  let worst: { check: Check; retryAfter: number } | undefined
  for (const outcome of outcomes) {
    if (outcome === null || "failed" in outcome || outcome.count <= outcome.check.rule.max) continue
    const retryAfter = Math.min(outcome.check.rule.window, Math.max(1, Math.ceil((outcome.resetAt - Date.now()) / 1000)))
    // the first refused hit of a window is the lockout: logged and announced once
    if (outcome.count === outcome.check.rule.max + 1) await lockedOut(ctx, outcome.check, retryAfter)
    if (!worst || retryAfter > worst.retryAfter) worst = { check: outcome.check, retryAfter }
  }
  if (worst) return { refused: refusal(ctx, worst.check.name, worst.check.rule, worst.retryAfter) }

  const attempt = checks.filter((c) => c.name === "passwordAccount" || c.name === "passwordAccountWide").map((c) => c.key)
  return attempt.length > 0 ? { settle: (handled) => resetOnSuccess(ctx, attempt, handled) } : OPEN
}

/** After a password attempt that was let through: a right password ends its counts (its failures no longer matter). */
async function resetOnSuccess(ctx: RequestContext, keys: readonly string[], handled: Handled): Promise<void> {
  if (handled.error !== undefined) return
  const { config } = ctx
  await Promise.all(keys.map((key) => config.serverState.reset(key))).catch((err: unknown) => {
    config.logger.error(new RateLimitUnavailable("The rate-limit store failed to reset an account.", { err }))
  })
}
