/**
 * Database sessions: the cookie holds a random session token; the adapter holds the session.
 * Reads refresh the expiry at most once per `updateAge` (and then re-set the cookie); the `expires`
 * returned is the one just written. A new token is issued at every sign-in, so a token seen before
 * sign-in is never the session after it, and the session it replaces in that browser is deleted.
 */
import { SessionTokenError, SignOutError } from "../../errors.js"
import type { AdapterSession, AdapterUser } from "../../adapters/types.js"
import type { Session, SessionCallbackParams } from "../../types.js"
import type { RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import { adapterOf } from "./adapter.js"
import { fireEvent } from "../config/events.js"
import { type SessionStrategy, clearSession, sessionBody } from "./cookie.js"
import { isRevoked } from "./revocation.js"
import { forgetSession, recordSession, sessionId, touchSession } from "./user-index.js"
import { sessionEnded, sessionIssued, sessionRecordFields } from "./lifecycle.js"
import { sessionTokenError } from "./tokens/record.js"
import { extended } from "../config/plain-object.js"
import { databaseAuthTime, forgetDatabaseAuthTime, noteDatabaseAuthTime } from "./auth-time.js"

function tokenOf(ctx: RequestContext): string | undefined {
  return ctx.req.cookies[ctx.cookies.sessionToken.name] || undefined
}

/** The database session's cookie: the session token, until `expires`. */
export function databaseSessionCookie(ctx: RequestContext, token: string, expires: Date): OutCookie {
  const { name, options } = ctx.cookies.sessionToken
  return { name, value: token, options: extended(options, { expires }) }
}

function publicSession(user: AdapterUser, expires: Date, error: Session["error"], authTime: number | undefined): Session {
  return sessionBody({ name: user.name, email: user.email, image: user.image }, expires.toISOString(), error, authTime)
}

/**
 * A session of a revoked user (`revokeSessions` with an adapter that cannot delete sessions): deleted,
 * its cookie cleared. Its last refresh (`expires - maxAge`) is its issue time. Null when it stands.
 */
async function revokedSession(ctx: RequestContext, token: string, userId: string, issuedAt: number, fresh: boolean) {
  try {
    if (!(await isRevoked(ctx, userId, issuedAt, fresh, sessionId(token)))) return null
  } catch (err) {
    // the adapter still vouches for the session; an outage of the shared store must not sign users out
    ctx.config.logger.error(new SessionTokenError("Session revocation could not be checked; the session stands.", { err }))
    return null
  }
  await adapterOf(ctx)
    ?.deleteSession(token)
    .catch(() => null)
  return { body: null, cookies: clearSession(ctx) }
}

/**
 * Ends the session a sign-in replaces in this browser (signed in, then linking a provider or signing in
 * again): its cookie is overwritten, and Auth.js keeps one session per browser, so it is not left listed
 * and valid. No `signOut` event: nobody signed out. A failure is logged; the sign-in goes on.
 */
async function replaced(ctx: RequestContext, token: string | undefined): Promise<void> {
  const adapter = adapterOf(ctx)
  if (!adapter || !token) return
  try {
    const found = await adapter.getSessionAndUser(token)
    if (!found) return
    await adapter.deleteSession(token)
    await forgetSession(ctx.config, String(found.user.id), sessionId(token))
    await forgetDatabaseAuthTime(ctx.config, token)
    await sessionEnded(ctx.config, String(found.user.id), sessionId(token), ctx.now)
  } catch (err) {
    ctx.config.logger.error(new SessionTokenError("The session this sign-in replaced could not be deleted.", { err }))
  }
}

export const databaseStrategy: SessionStrategy = {
  async read(ctx, update) {
    const adapter = adapterOf(ctx)
    const token = tokenOf(ctx)
    if (!adapter || !token) return { body: null, cookies: [] }
    let found: { session: AdapterSession; user: AdapterUser } | null
    try {
      found = await adapter.getSessionAndUser(token)
    } catch (err) {
      ctx.config.logger.error(new SessionTokenError("The session could not be read.", { err }))
      return { body: null, cookies: [] }
    }
    if (!found) return { body: null, cookies: clearSession(ctx) }
    const { session, user } = found
    const { maxAge, updateAge } = ctx.config.session
    if (session.expires.getTime() <= ctx.now) {
      await adapter
        .deleteSession(token)
        .catch((err) => ctx.config.logger.error(new SessionTokenError("Expired session not deleted.", { err })))
      return { body: null, cookies: clearSession(ctx) }
    }
    let expires = session.expires
    const refresh = update !== undefined || expires.getTime() - maxAge * 1000 + updateAge * 1000 <= ctx.now
    const revoked = await revokedSession(ctx, token, user.id, expires.getTime() - maxAge * 1000, refresh)
    if (revoked) return revoked
    await touchSession(ctx, String(user.id), token)
    const cookies: OutCookie[] = []
    if (refresh) {
      expires = new Date(ctx.now + maxAge * 1000)
      await adapter.updateSession({ sessionToken: token, expires })
      cookies.push(databaseSessionCookie(ctx, token, expires))
    }
    // Auth.js' arguments for this strategy: the adapter's session (expires a Date) plus user, and no token.
    const error = await sessionTokenError(ctx.config, user.id)
    const authTime = await databaseAuthTime(ctx.config, token)
    const params = {
      session: { ...session, expires, user, ...(error ? { error } : {}), ...(authTime !== undefined ? { authTime } : {}) },
      user,
      newSession: update?.data,
      ...(update !== undefined ? { trigger: "update" as const } : {}),
    }
    const body = ctx.config.customSession
      ? ((await ctx.config.callbacks.session(params as SessionCallbackParams)) as Session)
      : publicSession(user, expires, error, authTime)
    await fireEvent(ctx, "session", { session: body })
    return { body, cookies, userId: user.id }
  },

  async issue(ctx, subject) {
    const adapter = adapterOf(ctx)
    const userId = subject.user.id
    if (!adapter || !userId) return []
    const sessionToken = ctx.config.session.generateSessionToken()
    const expires = new Date(ctx.now + ctx.config.session.maxAge * 1000)
    await adapter.createSession({ sessionToken, userId, expires })
    // every sign-in is a proof of who the user is; unnoted (the port down), the session is simply not recent
    await noteDatabaseAuthTime(ctx.config, sessionToken, ctx.now).catch((err: unknown) => {
      ctx.config.logger.error(new SessionTokenError("The new session's sign-in time could not be kept (it reads as not recent).", { err }))
    })
    await recordSession(ctx, String(userId), sessionToken, ctx.now, sessionRecordFields(subject)).catch((err: unknown) => {
      ctx.config.logger.error(new SessionTokenError("The new session could not be indexed (listing it may lag).", { err }))
    })
    await sessionIssued(ctx, String(userId), sessionId(sessionToken), subject)
    await replaced(ctx, tokenOf(ctx))
    return [...clearSession(ctx).filter((c) => c.name !== ctx.cookies.sessionToken.name), databaseSessionCookie(ctx, sessionToken, expires)]
  },

  async destroy(ctx) {
    const adapter = adapterOf(ctx)
    const token = tokenOf(ctx)
    if (!token) return []
    try {
      // Some adapters (@auth/pg-adapter) return nothing from deleteSession: read the session first.
      const found = adapter ? await adapter.getSessionAndUser(token) : null
      const deleted = adapter ? await adapter.deleteSession(token) : null
      await forgetDatabaseAuthTime(ctx.config, token)
      if (found) {
        await forgetSession(ctx.config, String(found.user.id), sessionId(token))
        await sessionEnded(ctx.config, String(found.user.id), sessionId(token), ctx.now)
      }
      await fireEvent(ctx, "signOut", { session: deleted ?? found?.session ?? null })
    } catch (err) {
      ctx.config.logger.error(new SignOutError("The session could not be deleted at sign-out.", { err }))
    }
    return clearSession(ctx)
  },
}
