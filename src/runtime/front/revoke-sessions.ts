/**
 * The public "sign out everywhere": `revokeSessions(userId, config)`. Kept apart from ../sessions/revocation.ts,
 * which session reads import, because it resolves the config (and the config imports every flow).
 */
import type { AuthConfig } from "../../types.js"
import { resolvedFor } from "./resolve.js"
import { revokeUser } from "../sessions/revocation.js"

/**
 * Ends every session of a user, on every instance sharing the config's `serverState`: "sign out
 * everywhere", after a password change, or from an admin page. JWT sessions issued until now are
 * refused at their next read (other instances notice within `session.revocationCacheTtl`, default 5 s);
 * database sessions are deleted when the adapter has `deleteUserSessions` (memory and Redis adapters),
 * and refused by the same "not before" otherwise. Sessions made after the call are not affected.
 *
 * `POST /signout` with `everywhere=true` (CSRF-checked like any sign-out) does this for the signed-in user.
 *
 * @example
 * ```ts
 * import { revokeSessions } from "authchart"
 * app.post("/account/password", async (req, res) => {
 *   await changePassword(user, req.body.password)
 *   await revokeSessions(user.id, authConfig)
 * })
 * ```
 */
export async function revokeSessions(userId: string, config: AuthConfig): Promise<void> {
  if (!userId) throw new TypeError("revokeSessions: a user id is required")
  await revokeUser(resolvedFor(config), userId, Date.now())
}
