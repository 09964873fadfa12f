/**
 * The rate-limit rules and their defaults (docs/security.md "Limits"), and the resolved `rateLimit` config.
 */
import type { AuthConfig, RateLimitConfig, RateLimitRule, RateLimitRuleName } from "../../types.js"
import type { Env } from "../config/env.js"
import type { ResolvedRateLimit } from "../../types/resolved.js"
export type { ResolvedRateLimit }

/** The default of every rule: window in seconds, max hits in the window. */
export const DEFAULT_RULES: Readonly<Record<RateLimitRuleName, RateLimitRule>> = Object.freeze({
  passwordAccount: { window: 15 * 60, max: 5 },
  passwordAccountWide: { window: 5 * 60, max: 100 },
  passwordClient: { window: 60, max: 20 },
  passwordAccounts: { window: 60 * 60, max: 100 },
  emailAddress: { window: 15 * 60, max: 3 },
  emailClient: { window: 60 * 60, max: 10 },
  webauthnClient: { window: 60, max: 30 },
  stepClient: { window: 60, max: 30 },
  oauthClient: { window: 60, max: 30 },
  backchannelClient: { window: 60, max: 120 },
  accountClient: { window: 60, max: 20 },
  client: { window: 60, max: 300 },
})

const PASSWORD_RULES: readonly RateLimitRuleName[] = ["passwordAccount", "passwordAccountWide", "passwordClient", "passwordAccounts"]
/**
 * Rules in force only when `rateLimit.rules` names them: a lock of an account for every client lets a
 * stranger keep its owner out, so it is the app's choice (NIST SP 800-63B §5.2.2 prefers throttling).
 */
const OFF_BY_DEFAULT: ReadonlySet<RateLimitRuleName> = new Set(["passwordAccountWide"])

function validRule(name: string, rule: RateLimitRule): RateLimitRule {
  if (!(Number.isFinite(rule.window) && rule.window > 0 && Number.isInteger(rule.max) && rule.max >= 0)) {
    throw new TypeError(`rateLimit.rules.${name}: window must be a positive number of seconds and max a whole number.`)
  }
  return Object.freeze({ window: rule.window, max: rule.max })
}

/**
 * The `rateLimit` option resolved against the environment, or null when limits are off: `false`, or
 * not enabled outside `NODE_ENV=production`. Throws `TypeError` on a malformed rule.
 */
export function resolveRateLimit(input: AuthConfig["rateLimit"], env: Env): ResolvedRateLimit | null {
  if (input === false) return null
  const options: RateLimitConfig = input === true ? { enabled: true } : (input ?? {})
  if (!(options.enabled ?? env.NODE_ENV === "production")) return null
  const rules = new Map<RateLimitRuleName, RateLimitRule>()
  for (const name of Object.keys(DEFAULT_RULES) as RateLimitRuleName[]) {
    const override = options.rules?.[name]
    if (override === false || (override === undefined && OFF_BY_DEFAULT.has(name))) continue
    rules.set(name, validRule(name, { ...DEFAULT_RULES[name], ...(override ?? {}) }))
  }
  return Object.freeze({
    rules,
    key: options.key,
    skip: options.skip,
    failClosed: new Set(options.failClosed ?? PASSWORD_RULES),
  })
}
