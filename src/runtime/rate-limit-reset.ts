/**
 * Lifting a lockout by hand (support staff): `resetRateLimit(config, "ada@example.com")`.
 */
import type { AuthConfig } from "../types.js"
import { resolvedFor } from "./config.js"
import { accountHash } from "./rate-limit-client.js"
import { stateKey } from "./server-state.js"

/**
 * Forgets the per-account counts of `account` (password failures and magic-link requests), on every
 * instance that shares the config's `serverState`, so the next attempt is admitted at once.
 *
 * @example
 * ```ts
 * import { resetRateLimit } from "authchart"
 * await resetRateLimit(authConfig, "ada@example.com")
 * ```
 */
export async function resetRateLimit(config: AuthConfig, account: string): Promise<void> {
  const resolved = resolvedFor(config)
  const hashed = accountHash(account, resolved.secrets[0])
  await Promise.all((["passwordAccount", "emailAddress"] as const).map((rule) => resolved.serverState.reset(stateKey("rl", hashed, rule))))
}
