/**
 * The sessions a user can see and end: list them, end one, end all but this one. Database sessions
 * come from the session index (./user-index.ts) checked against the adapter. A JWT session lives
 * only in its browser's cookie: the server cannot enumerate them, so a list has only the asking
 * browser's session, and "the others" end through the per-user revocation (./revocation.ts) while this
 * browser gets its session re-issued.
 */
import type { RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { adapterOf } from "./adapter.js"
import { revokeUser } from "./revocation.js"
import { reissueJwt } from "./session.js"
import {
  type SessionInfo,
  extrasOf,
  forgetSession,
  indexedSessions,
  liveSessions,
  recordSession,
  sessionId,
  tokenOfSession,
} from "./user-index.js"
import type { SignedIn } from "./signed-in.js"
import { sessionEnded, sessionReissued } from "./lifecycle.js"
import { transferDatabaseAuthTime } from "./auth-time.js"
import { databaseSessionCookie } from "./database.js"

/** The JWT session of a request, described as far as its token tells. */
function jwtSessionInfo(ctx: RequestContext, who: SignedIn): SessionInfo {
  const exp = typeof who.payload?.exp === "number" ? who.payload.exp * 1000 : ctx.now + ctx.config.jwt.maxAge * 1000
  return {
    id: "current",
    userAgent: ctx.req.headers.get("user-agent")?.slice(0, 256) ?? null,
    createdAt: null,
    lastSeenAt: new Date(ctx.now).toISOString(),
    expires: new Date(exp).toISOString(),
    current: true,
  }
}

/** The signed-in user's sessions, the asking one marked `current`. */
export async function sessionsOf(ctx: RequestContext, who: SignedIn): Promise<SessionInfo[]> {
  const adapter = adapterOf(ctx)
  if (ctx.config.session.strategy !== "database" || !adapter || !who.token) return [jwtSessionInfo(ctx, who)]
  const current = sessionId(who.token)
  const list = await liveSessions(ctx.config, adapter, { id: who.userId }, ctx.now)
  return list.map((s) => (s.id === current ? { ...s, current: true } : s))
}

/**
 * Ends the user's database session `id` (a public id from the list). False when the user has no such
 * session: another user's id is never found, because only this user's index is searched.
 */
export async function revokeSessionOf(config: ResolvedConfig, userId: string, id: string): Promise<boolean> {
  const adapter = adapterOf({ config })
  if (config.session.strategy !== "database" || !adapter) return false
  const token = await tokenOfSession(config, userId, id)
  if (!token) return false
  const found = await adapter.getSessionAndUser(token)
  await forgetSession(config, userId, id)
  if (!found || String(found.user.id) !== userId) return false
  await adapter.deleteSession(token)
  await sessionEnded(config, userId, id, Date.now())
  return true
}

/**
 * Ends every session of the signed-in user but the asking one. Database: the indexed sessions are
 * deleted; then, for sessions the index never saw, the user's "not before" is set (and every session
 * deleted when the adapter can), and this browser gets a new session carrying its creation time over.
 * JWT: the "not before", and this browser's token re-issued. Answers the cookies of the new session.
 */
export async function revokeOthers(ctx: RequestContext, who: SignedIn): Promise<OutCookie[]> {
  const { config } = ctx
  if (config.session.strategy !== "database") {
    await revokeUser(config, who.userId, ctx.now)
    return who.payload ? reissueJwt(ctx, who.payload) : []
  }
  const adapter = adapterOf(ctx)
  if (!adapter || !who.token) return []
  const indexed = await indexedSessions(config, who.userId)
  const current = sessionId(who.token)
  const mine = indexed.find((s) => s.id === current)
  const createdAt = Number(mine?.fields[`${current}:c`] ?? ctx.now)
  for (const other of indexed) {
    if (other.id === current) continue
    const found = await adapter.getSessionAndUser(other.token)
    if (found && String(found.user.id) === who.userId) await adapter.deleteSession(other.token)
    await forgetSession(config, who.userId, other.id)
  }
  await revokeUser(config, who.userId, ctx.now)
  const sessionToken = config.session.generateSessionToken()
  const expires = new Date(ctx.now + config.session.maxAge * 1000)
  await adapter.createSession({ sessionToken, userId: who.userId, expires })
  await adapter.deleteSession(who.token).catch(() => null)
  await forgetSession(config, who.userId, current)
  const extras = mine ? extrasOf(mine) : {}
  await recordSession(ctx, who.userId, sessionToken, Number.isFinite(createdAt) ? createdAt : ctx.now, extras)
  await sessionReissued(ctx, who.userId, current, sessionId(sessionToken), extras)
  await transferDatabaseAuthTime(config, who.token, sessionToken)
  return [databaseSessionCookie(ctx, sessionToken, expires)]
}
