/**
 * The public functions of session and account management, for app code (an admin page, a "security"
 * page of your own); the signed-in user reaches the same through the routes in ../sessions/account-routes.ts.
 */
import type { AuthConfig } from "../../types.js"
import { type LinkedAccount, accountsOf, unlinkFor } from "../sessions/accounts.js"
import { fromWebRequest, requestContext } from "../http/request.js"
import { type ResolvedConfig, resolvedFor } from "./resolve.js"
import type { IncomingRequest } from "../http/context.js"
import { type OutCookie, serializeCookie } from "../http/cookies.js"
import { adapterOf } from "../sessions/adapter.js"
import { type SessionInfo, liveSessions, sessionId } from "../sessions/user-index.js"
import { revokeOthers, revokeSessionOf } from "../sessions/user-sessions.js"
import { signedIn } from "../sessions/signed-in.js"

export type { LinkedAccount, SessionInfo }

/**
 * The user's database sessions, newest first: public id (never the token), user agent, created and
 * last-seen times, expiry. JWT sessions live only in their browsers' cookies, so with the JWT strategy
 * the answer is `[]` (`GET /auth/sessions` shows the asking browser's own session).
 *
 * @example
 * ```ts
 * import { listSessions } from "authchart"
 * const sessions = await listSessions(user.id, authConfig) // [{ id, userAgent, createdAt, lastSeenAt, expires }]
 * ```
 */
export async function listSessions(userId: string, config: AuthConfig): Promise<SessionInfo[]> {
  const resolved = resolvedFor(config)
  const adapter = adapterOf({ config: resolved })
  if (resolved.session.strategy !== "database" || !adapter) return []
  return liveSessions(resolved, adapter, { id: userId }, Date.now())
}

/** Which session `revokeSession` ends: by its token, or by a user's session id from `listSessions`. */
export type SessionTarget = { readonly sessionToken: string } | { readonly userId: string; readonly id: string }

/**
 * Ends one database session, by token or by `{ userId, id }` (the id from `listSessions`); true when
 * a session of that user was ended. An id is looked up among that user's sessions only. JWT sessions
 * cannot be ended one by one: use `revokeSessions(userId)` (all of them) or `revokeOtherSessions`.
 *
 * @example
 * ```ts
 * await revokeSession({ userId: user.id, id: sessions[1].id }, authConfig)
 * ```
 */
export async function revokeSession(target: SessionTarget, config: AuthConfig): Promise<boolean> {
  const resolved = resolvedFor(config)
  if ("id" in target) return revokeSessionOf(resolved, String(target.userId), target.id)
  const adapter = adapterOf({ config: resolved })
  const found = adapter && resolved.session.strategy === "database" ? await adapter.getSessionAndUser(target.sessionToken) : null
  if (!found) return false
  return revokeSessionOf(resolved, String(found.user.id), sessionId(target.sessionToken))
}

/** What `revokeOtherSessions` did: whether someone was signed in, and the cookies to send back. */
export interface RevokeOthersResult {
  /** False when the request had no valid session (nothing was revoked). */
  readonly revoked: boolean
  /** `Set-Cookie` values of this browser's re-issued session: send them with your response. */
  readonly setCookie: string[]
}

/** The runtime half of `revokeOtherSessions`, for integrations: the request already parsed. */
export async function revokeOtherSessionsFor(
  incoming: IncomingRequest,
  config: ResolvedConfig,
): Promise<{ revoked: boolean; cookies: OutCookie[] }> {
  const url = new URL(`${config.basePath}/revoke-other-sessions`, incoming.url)
  const ctx = requestContext({ ...incoming, url, method: "POST" }, config)
  if ("response" in ctx) return { revoked: false, cookies: [] }
  const who = await signedIn(ctx)
  if (who.userId === undefined) return { revoked: false, cookies: [...who.cookies] }
  return { revoked: true, cookies: await revokeOthers(ctx, who) }
}

/**
 * Ends every session of the request's signed-in user except the request's own ("sign out other
 * devices"), for both strategies; this browser's session is re-issued, so send `setCookie` back. Your
 * route must check CSRF itself (`POST /auth/revoke-other-sessions` does). Express: the form in
 * `authchart/express` takes `(req, config, res)`.
 *
 * @example
 * ```ts
 * const { setCookie } = await revokeOtherSessions(request, authConfig)
 * const response = new Response(null, { status: 204 })
 * for (const line of setCookie) response.headers.append("Set-Cookie", line)
 * ```
 */
export async function revokeOtherSessions(request: Request, config: AuthConfig): Promise<RevokeOthersResult> {
  const resolved = resolvedFor(config)
  const parsed = await fromWebRequest(request)
  const url = new URL(`${resolved.basePath}/revoke-other-sessions`, parsed.url)
  const { revoked, cookies } = await revokeOtherSessionsFor({ ...parsed, url, method: "POST" }, resolved)
  return { revoked, setCookie: cookies.map(serializeCookie) }
}

/**
 * The user's linked OAuth/OIDC accounts (provider id and name, type, when linked), as far as authchart
 * has seen them linked or used (Auth.js adapters cannot list accounts). Needs an adapter.
 */
export async function listAccounts(userId: string, config: AuthConfig): Promise<LinkedAccount[]> {
  return accountsOf(resolvedFor(config), String(userId))
}

/**
 * Unlinks the user's account at `provider`, unless it is their last way to sign in (then
 * `LastSignInMethod`; no such account: `AccountNotFound`). Fires `events.unlinkAccount`.
 *
 * @example
 * ```ts
 * await unlinkAccount(user.id, "github", authConfig)
 * ```
 */
export async function unlinkAccount(userId: string, provider: string, config: AuthConfig): Promise<void> {
  await unlinkFor(resolvedFor(config), String(userId), provider)
}
