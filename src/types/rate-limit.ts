/** Abuse-limit (rate limit) options. Part of the public types, re-exported by `authchart`. */

/** The limits authchart applies (docs/security.md "Limits"); each can be tuned or turned off in `rateLimit.rules`. */
export type RateLimitRuleName =
  | "passwordAccount"
  | "passwordAccountWide"
  | "passwordClient"
  | "passwordAccounts"
  | "emailAddress"
  | "emailClient"
  | "webauthnClient"
  | "stepClient"
  | "oauthClient"
  | "backchannelClient"
  | "accountClient"
  | "client"

/** At most `max` hits in a fixed window of `window` seconds (the window starts at the first hit). */
export interface RateLimitRule {
  window: number
  max: number
}

/** What the `rateLimit.key` and `rateLimit.skip` hooks see of a request about to be counted. */
export interface RateLimitRequest {
  readonly rule: RateLimitRuleName
  /** The client as counted: the integration's client IP (IPv6 per /64), or undefined when none was given. */
  readonly client: string | undefined
  readonly method: string
  readonly action: string
  readonly providerId: string | undefined
  readonly headers: { get(name: string): string | null }
}

/** The `rateLimited` event's message. */
export interface RateLimitedEvent {
  readonly rule: RateLimitRuleName
  readonly client: string | undefined
  /** Keyed hash of the account or address (per-account rules only). */
  readonly account: string | undefined
  /** Seconds until the rule admits requests again. */
  readonly retryAfter: number
}

/** `rateLimit` in the config (docs/security.md "Limits"). */
export interface RateLimitConfig {
  /** Default: true when `NODE_ENV` is `production`. */
  enabled?: boolean
  /** Per-rule overrides merged over the defaults; `false` turns one rule off. */
  rules?: { [K in RateLimitRuleName]?: Partial<RateLimitRule> | false }
  /** The client key to count under instead of the IP (an API key, a tenant); undefined keeps the IP. */
  key?: (request: RateLimitRequest) => string | undefined
  /** True to not count this request under this rule (health checks, internal IPs). */
  skip?: (request: RateLimitRequest) => boolean
  /**
   * Rules that refuse the request when the server-state port fails (Redis down); the others let it
   * through. Default: the password rules.
   */
  failClosed?: readonly RateLimitRuleName[]
}
