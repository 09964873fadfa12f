/**
 * Lifting a lockout by hand (support staff): `resetRateLimit(config, "ada@example.com", { client })`.
 */
import type { AuthConfig } from "../../types.js"
import { resolvedFor } from "./resolve.js"
import { accountHash, clientKey } from "../limits/client.js"
import { stateKey } from "../limits/server-state.js"

/** Which counts {@link resetRateLimit} forgets besides the account's own. */
export interface ResetRateLimitOptions {
  /**
   * The client whose password lockout on this account ends (its IP, as the `rateLimited` event and log
   * line name it, or the `rateLimit.key` hook's key). Password failures are counted per (account, client).
   */
  client?: string
}

/**
 * Forgets the per-account counts of `account` on every instance that shares the config's `serverState`:
 * the magic-link and code requests of the address, the account-wide password count, and the password
 * failures of `options.client` on it (or of requests that came without a client IP), so the next
 * attempt is admitted at once.
 *
 * @example
 * ```ts
 * import { resetRateLimit } from "authchart"
 * await resetRateLimit(authConfig, "ada@example.com", { client: "203.0.113.7" })
 * ```
 */
export async function resetRateLimit(config: AuthConfig, account: string, options: ResetRateLimitOptions = {}): Promise<void> {
  const resolved = resolvedFor(config)
  const hashed = accountHash(account, resolved.secrets[0])
  const keys = [
    stateKey("rl", hashed, "emailAddress"),
    stateKey("rl", hashed, "passwordAccountWide"),
    stateKey("rl", hashed, "passwordAccount", ""),
    ...(options.client === undefined ? [] : [stateKey("rl", hashed, "passwordAccount", clientKey(options.client))]),
  ]
  await Promise.all(keys.map((key) => resolved.serverState.reset(key)))
}
