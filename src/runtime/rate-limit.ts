/**
 * The limiter (README "Limits"): before a request is routed, the rules that apply to it are counted in
 * the server-state port (in parallel, one `count` each); a request over any rule does no work and gets
 * the refusal answer. Password failures per account are counted as attempts that a success resets, so
 * the sixth attempt after five failures is refused before `authorize` runs.
 */
import { RateLimitUnavailable, RateLimited } from "../errors.js"
import type { CredentialsConfig, RateLimitRequest, RateLimitRule, RateLimitRuleName } from "../types.js"
import { type Handled, type RequestContext, param } from "./context.js"
import { fireEvent } from "./events.js"
import { accountHash, clientKey } from "./rate-limit-client.js"
import type { ResolvedRateLimit } from "./rate-limit-rules.js"
import { refusal } from "./rate-limit-respond.js"
import { errorResponse } from "./respond.js"
import { stateKey } from "./server-state.js"
import { type SyncVerbs, syncVerbs } from "./server-state-memory.js"

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

type Outcome = { check: Check; count: number; resetAt: number } | { check: Check; failed: unknown } | null

/** What the gate decided: a refusal, or a hook to run once the request was handled (a promise only when it waits for the port). */
export interface Gate {
  readonly refused?: Handled
  settle(handled: Handled): undefined | Promise<void>
}

/** The gate of a request no rule counts, or one let through with nothing to do afterwards. */
export const OPEN: Gate = { settle: () => undefined }
const NO_CHECKS: readonly Check[] = []
/** The session and account management endpoints a client may POST to only so often. */
const ACCOUNT_ACTIONS: ReadonlySet<string> = new Set(["revoke-session", "revoke-other-sessions", "unlink-account"])
const PASSWORD_FIELDS = ["email", "username", "identifier", "login", "user"]

const accountFields = new WeakMap<object, readonly string[]>()

/** The fields that may name the account, in order: the usual login fields, then the provider's non-password ones. */
function accountFieldsOf(config: CredentialsConfig | undefined): readonly string[] {
  if (!config) return PASSWORD_FIELDS
  let names = accountFields.get(config)
  if (!names) {
    const fields = Object.entries(config.credentials ?? {})
    names = [...PASSWORD_FIELDS, ...fields.filter(([, input]) => input.type !== "password").map(([name]) => name)]
    accountFields.set(config, names)
  }
  return names
}

/** The account a credentials submission names: a usual login field, else the first non-password field. */
function credentialsAccount(ctx: RequestContext): string | undefined {
  for (const name of accountFieldsOf(ctx.provider?.config as CredentialsConfig | undefined)) {
    const value = ctx.req.body?.[name]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return undefined
}

/** The rules a request falls under (names), and the account its per-account rules count. */
interface Rules {
  readonly names: readonly RateLimitRuleName[]
  readonly account: string | undefined
}

const NO_RULES: Rules = { names: [], account: undefined }
/** The rules named per route kind, made once (a request only picks one). */
type RuleSet = { readonly plain: readonly RateLimitRuleName[]; readonly account: readonly RateLimitRuleName[] }
const CLIENT = ["client"] as const
const names = (...extra: RateLimitRuleName[]): RuleSet => ({
  plain: [...CLIENT, ...extra],
  account: [...CLIENT, "accountClient", ...extra],
})
const PLAIN = names()
const BACKCHANNEL = names("backchannelClient")
const PASSWORD = names("passwordClient")
const PASSWORD_ACCOUNT = names("passwordClient", "passwordAccount", "passwordAccounts")
const EMAIL = names("emailClient")
const EMAIL_ADDRESS = names("emailClient", "emailAddress")
const WEBAUTHN = names("webauthnClient")
const OAUTH = names("oauthClient")

// one shape for every answer, and no closure per request
const pickPlain = (set: RuleSet, account?: string): Rules => ({ names: set.plain, account })
const pickManaging = (set: RuleSet, account?: string): Rules => ({ names: set.account, account })

/** The rules a request falls under, by route and provider type, before hooks. */
function rulesFor(ctx: RequestContext): Rules {
  const { action } = ctx
  const method = ctx.req.method
  if (action === "session" && method === "GET") return NO_RULES
  const managing = method === "POST" && ACCOUNT_ACTIONS.has(action)
  const pick = managing ? pickManaging : pickPlain
  const route: string = action // authchart's own actions are not Auth.js' AuthAction
  if (route === "backchannel-logout") return pick(BACKCHANNEL)
  switch (ctx.provider?.type) {
    case "credentials": {
      if (action !== "callback" || method !== "POST" || param(ctx.req, "step") !== undefined) break
      const account = credentialsAccount(ctx)
      return account ? pick(PASSWORD_ACCOUNT, account) : pick(PASSWORD)
    }
    case "email": {
      if (action !== "signin" || method !== "POST") break
      const email = ctx.req.body?.email
      return typeof email === "string" && email.trim() !== "" ? pick(EMAIL_ADDRESS, email) : pick(EMAIL)
    }
    case "webauthn":
      if (action === "webauthn-options" || action === "callback") return pick(WEBAUTHN)
      break
    case "oauth":
    case "oidc":
      if (action === "signin") return pick(OAUTH)
      break
  }
  return pick(PLAIN)
}

/** The rules that count an account (the others count the client). */
const ACCOUNT_RULES: ReadonlySet<RateLimitRuleName> = new Set(["passwordAccount", "passwordAccounts", "emailAddress"])

/** The checks of this request: rules in force, not skipped by the hook, with a client where one is needed. */
function checksFor(ctx: RequestContext, limits: ResolvedRateLimit): readonly Check[] {
  const { names: ruleNames, account } = rulesFor(ctx)
  if (ruleNames.length === 0) return NO_CHECKS
  const ip = ctx.req.clientIp ? clientKey(ctx.req.clientIp) : undefined
  const checks: Check[] = []
  // the account rules of one request name the same account: hashed once, when one counts it
  let hashed: string | undefined
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
    if (account !== undefined && hashed === undefined && ACCOUNT_RULES.has(name)) hashed = accountHash(account, ctx.config.secrets[0])
    if (name === "passwordAccount" || name === "emailAddress") {
      checks.push({ name, rule, key: stateKey("rl", hashed as string, name), client, account: hashed })
    } else if (client !== undefined) {
      const key = stateKey("rl", client, name)
      if (name === "passwordAccounts") {
        checks.push({ name, rule, key, client, distinct: stateKey("rl", client, name, hashed as string), account: hashed })
      } else {
        checks.push({ name, rule, key, client })
      }
    }
  }
  return checks
}

function evaluate(ctx: RequestContext, check: Check): Promise<Outcome> {
  if (check.distinct) return evaluateDistinct(ctx, check, check.distinct)
  // one count: no async frame of its own
  return ctx.config.serverState.count(check.key, check.rule.window * 1000).then(
    ({ count, resetAt }) => ({ check, count, resetAt }),
    (err: unknown) => ({ check, failed: err }),
  )
}

/** A "distinct accounts" rule: the hit counts only the first time this (client, account) is seen in the window. */
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

/** {@link evaluate} on the in-memory port's synchronous verbs: the same steps, no promise per count. */
function evaluateNow(sync: SyncVerbs, check: Check): Outcome {
  const windowMs = check.rule.window * 1000
  try {
    if (check.distinct && !sync.claim(check.distinct, windowMs)) return null
    const { count, resetAt } = sync.count(check.key, windowMs)
    if (check.distinct && count > check.rule.max) sync.reset(check.distinct)
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
 * With the in-memory port's synchronous verbs the gate is decided at once (no promise), unless a lockout
 * is announced (its event handler may be async).
 */
export function rateLimitGate(ctx: RequestContext): Gate | Promise<Gate> {
  const limits = ctx.config.rateLimit
  if (!limits) return OPEN
  const checks = checksFor(ctx, limits)
  if (checks.length === 0) return OPEN
  const sync = syncVerbs(ctx.config.serverState)
  if (!sync) {
    const pending: Promise<Outcome>[] = []
    for (const check of checks) pending.push(evaluate(ctx, check))
    return Promise.all(pending).then((outcomes) => decide(ctx, limits, checks, outcomes))
  }
  const outcomes: Outcome[] = []
  for (const check of checks) outcomes.push(evaluateNow(sync, check))
  return decide(ctx, limits, checks, outcomes)
}

/** The gate the counted outcomes make (see {@link rateLimitGate}); a promise only when lockouts are announced. */
function decide(
  ctx: RequestContext,
  limits: ResolvedRateLimit,
  checks: readonly Check[],
  outcomes: readonly Outcome[],
): Gate | Promise<Gate> {
  let failed: Extract<Outcome, { failed: unknown }>[] | undefined
  for (const outcome of outcomes) if (outcome !== null && "failed" in outcome) (failed ??= []).push(outcome)
  if (failed) {
    const closed = failed.find((o) => limits.failClosed.has(o.check.name))
    const names = failed.map((o) => o.check.name).join(", ")
    const error = new RateLimitUnavailable(`The rate-limit store failed (${names}); ${closed ? "refused" : "let through"}.`, {
      err: failed[0]?.failed,
    })
    if (closed) return { refused: errorResponse(ctx, error), settle: OPEN.settle }
    ctx.config.logger.error(error)
  }
  let worst: { check: Check; retryAfter: number } | undefined
  let lockouts: { check: Check; retryAfter: number }[] | undefined
  for (const outcome of outcomes) {
    if (outcome === null || "failed" in outcome || outcome.count <= outcome.check.rule.max) continue
    const retryAfter = Math.min(outcome.check.rule.window, Math.max(1, Math.ceil((outcome.resetAt - Date.now()) / 1000)))
    if (outcome.count === outcome.check.rule.max + 1) (lockouts ??= []).push({ check: outcome.check, retryAfter })
    if (!worst || retryAfter > worst.retryAfter) worst = { check: outcome.check, retryAfter }
  }
  if (worst) {
    const gate: Gate = { refused: refusal(ctx, worst.check.name, worst.check.rule, worst.retryAfter), settle: OPEN.settle }
    return lockouts ? announce(ctx, lockouts).then(() => gate) : gate
  }
  for (const check of checks) if (check.name === "passwordAccount") return new AccountReset(ctx, check.key)
  return OPEN
}

/** Announces each lockout, one after the other, in the order the rules were counted. */
async function announce(ctx: RequestContext, lockouts: readonly { check: Check; retryAfter: number }[]): Promise<void> {
  for (const { check, retryAfter } of lockouts) await lockedOut(ctx, check, retryAfter)
}

/** The gate of a password attempt that was let through: a right password ends the account's count (its failures no longer matter). */
class AccountReset implements Gate {
  constructor(
    private readonly ctx: RequestContext,
    private readonly key: string,
  ) {}
  settle(handled: Handled): undefined | Promise<void> {
    if (handled.error !== undefined) return undefined
    const { config } = this.ctx
    const sync = syncVerbs(config.serverState)
    if (sync) {
      sync.reset(this.key)
      return undefined
    }
    return config.serverState.reset(this.key).catch((err: unknown) => {
      config.logger.error(new RateLimitUnavailable("The rate-limit store failed to reset an account.", { err }))
    })
  }
}
