/**
 * The back-channel logout receiver (OpenID Connect Back-Channel Logout 1.0 §2.5–2.8):
 * `POST <basePath>/backchannel-logout/<provider>` with the form field `logout_token`, sent by the
 * provider's server, not a browser (so no CSRF token; rate-limited per client instead). A valid token
 * ends the sessions it names (§2.7): with `sid`, the sessions that provider session started (and, when
 * `sub` is given too, only those of that user); with `sub` alone, every session of its user (the
 * per-user "not before" of `revokeSessions`). Ended database sessions are deleted; JWT sessions are
 * refused from now on. A token naming no session we know is a success: that person is signed out here
 * already (§2.7). The answer is 200, or 400 `{"error":"invalid_request"}` on any failure, logged once
 * as `BackchannelLogoutError`; never cached.
 */
import { BackchannelLogoutError } from "../../../errors.js"
import type { Handled, RequestContext } from "../../http/context.js"
import { adapterOf } from "../adapter.js"
import { stableUserId } from "../user-id.js"
import { json } from "../../http/respond.js"
import { revokeSessionRef, revokeUser } from "../revocation.js"
import { forgetSession, tokenOfSession } from "../user-index.js"
import { sessionEnded } from "../lifecycle.js"
import { type LogoutClaims, verifyLogoutToken } from "./logout-token.js"
import { type SidSession, forgetSidSessions, sidSessions } from "./sid-sessions.js"

const NO_STORE = Object.freeze({ "Cache-Control": "no-store" })

/** The user whose sessions a logout token ends: found by the account (provider, `sub`). */
async function userIdOf(ctx: RequestContext, providerId: string, sub: string): Promise<string | undefined> {
  const adapter = adapterOf(ctx)
  // without an adapter a JWT session's `sub` is derived from provider and account id (oauth.ts)
  if (!adapter) return stableUserId(providerId, sub)
  return (await adapter.getUserByAccount({ provider: providerId, providerAccountId: sub }))?.id
}

/**
 * Ends one session: refused from now on by its reference (both strategies), a database session also
 * deleted through the adapter (found by the session index), and what it held let go.
 */
async function endSession(ctx: RequestContext, session: SidSession): Promise<void> {
  const { config } = ctx
  await revokeSessionRef(config, session.userId, session.ref, ctx.now)
  const adapter = adapterOf(ctx)
  if (config.session.strategy === "database" && adapter) {
    const token = await tokenOfSession(config, session.userId, session.ref)
    if (token) await adapter.deleteSession(token)
    await forgetSession(config, session.userId, session.ref)
  }
  await sessionEnded(config, session.userId, session.ref, ctx.now)
}

/** The sessions the provider session `sid` started, only those of `sub`'s user when the token names one. */
async function endSidSessions(ctx: RequestContext, providerId: string, sid: string, sub: string | undefined): Promise<number> {
  let sessions = await sidSessions(ctx.config, providerId, sid)
  if (sub !== undefined && sessions.length > 0) {
    const userId = await userIdOf(ctx, providerId, sub)
    sessions = sessions.filter((s) => s.userId === userId)
  }
  for (const session of sessions) await endSession(ctx, session)
  await forgetSidSessions(
    ctx.config,
    providerId,
    sid,
    sessions.map((s) => s.ref),
  )
  return sessions.length
}

/** Ends the sessions a verified token names: by `sid` when it has one, else every session of `sub`'s user. */
async function endSessions(ctx: RequestContext, providerId: string, claims: LogoutClaims): Promise<void> {
  if (claims.sid !== undefined) {
    const ended = await endSidSessions(ctx, providerId, claims.sid, claims.sub)
    ctx.config.logger.debug("backchannel-logout", { provider: providerId, sessions: ended === 0 ? "none (no session of this sid)" : ended })
    return
  }
  const userId = claims.sub === undefined ? undefined : await userIdOf(ctx, providerId, claims.sub)
  if (!userId) {
    ctx.config.logger.debug("backchannel-logout", { provider: providerId, sessions: "none (no such account)" })
    return
  }
  await revokeUser(ctx.config, userId, ctx.now)
  ctx.config.logger.debug("backchannel-logout", { provider: providerId, sessions: "all of the user" })
}

async function receive(ctx: RequestContext): Promise<void> {
  const provider = ctx.provider
  if (provider?.type !== "oidc") throw new BackchannelLogoutError(`"${ctx.providerId}" is not an OIDC provider.`)
  const token = ctx.req.body?.logout_token
  if (typeof token !== "string" || token === "") throw new BackchannelLogoutError("The request has no logout_token.")
  const claims = await verifyLogoutToken(ctx, provider.config, token)
  try {
    await endSessions(ctx, provider.id, claims)
  } catch (err) {
    // the provider may retry with the same token: its jti is free again
    await ctx.config.serverState.reset(claims.jtiKey).catch(() => undefined)
    throw err
  }
}

/** `POST /backchannel-logout/<provider>`: 200 when the sessions ended, else 400 `invalid_request`. */
export async function backchannelLogout(ctx: RequestContext): Promise<Handled> {
  try {
    await receive(ctx)
    return { response: { status: 200, headers: { ...NO_STORE } } }
  } catch (err) {
    const error = err instanceof BackchannelLogoutError ? err : new BackchannelLogoutError("The back-channel logout failed.", { err })
    ctx.config.logger.error(error)
    return { response: json({ error: "invalid_request" }, 400, NO_STORE), error }
  }
}
