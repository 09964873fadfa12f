/**
 * What both session strategies (JWT in session.ts, database in session-database.ts) share: the
 * strategy interface and clearing the session cookie.
 */
import type { Account, Profile, Session, User } from "../../types.js"
import type { RequestContext } from "../http/context.js"
import { type OutCookie, clearChunked } from "../http/cookies.js"

/** What reading the session answers: the session (or null) and the cookies to set. */
export interface SessionRead {
  readonly body: Session | null
  readonly cookies: readonly OutCookie[]
  /** The signed-in user's id (JWT `sub`, or the adapter user's id) when there is a session. */
  readonly userId?: string
}

/** Who a sign-in issues a session for. */
export interface SignInSubject {
  readonly user: User
  readonly account: Account | null
  readonly profile?: Profile
  readonly isNewUser?: boolean
  /** OIDC: the provider's session (`sid` of the sign-in's ID token), for back-channel logout. */
  readonly sid?: string
}

/** A session strategy: read, issue and destroy sessions. */
export interface SessionStrategy {
  read(ctx: RequestContext, update?: { data: unknown }): Promise<SessionRead>
  /** The session's cookies. */
  issue(ctx: RequestContext, subject: SignInSubject): Promise<readonly OutCookie[]>
  destroy(ctx: RequestContext): Promise<readonly OutCookie[]>
}

/** Clears every chunk of the session cookie the request carried. */
export function clearSession(ctx: RequestContext): OutCookie[] {
  const { name, options } = ctx.cookies.sessionToken
  return clearChunked(ctx.req.cookies, name, options)
}

/** The session JSON: `authTime` only when known, one literal per shape (a spread into a literal copies key by key). */
export function sessionBody(user: Session["user"], expires: string, error: Session["error"], authTime: number | undefined): Session {
  if (authTime === undefined) return error ? { user, expires, error } : { user, expires }
  return error ? { user, expires, error, authTime } : { user, expires, authTime }
}
