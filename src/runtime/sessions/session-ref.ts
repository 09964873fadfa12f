/**
 * What names one session of a user across requests, for ending it alone (back-channel logout by `sid`)
 * and for what is kept per session (provider tokens, the sign-in's ID token):
 *
 * - JWT sessions: the claim `sessionId`, a random id written at sign-in (after the `jwt` callback, like
 *   `idTokenHint`) and carried over on every re-issue, so it stays the same while `jti` changes. Any
 *   Auth.js reader ignores the extra claim.
 * - Database sessions: the session's public id, a one-way hash of its token (./user-index.ts).
 */
import { extended } from "../config/plain-object.js"
import { randomBytes } from "../crypto/random.js"
import type { JWT } from "../../types.js"
import { sessionId } from "./user-index.js"

/** The session-token claim naming a JWT session. */
export const SESSION_ID_CLAIM = "sessionId"

/** The session id of a decoded session token, if it has one. */
export function jwtSessionId(token: JWT | null | undefined): string | undefined {
  const value = token?.[SESSION_ID_CLAIM]
  return typeof value === "string" && value !== "" ? value : undefined
}

/** `token` with a new session id (at sign-in: every sign-in is a new session). */
export function withNewSessionId(token: JWT): JWT {
  return extended(token, { [SESSION_ID_CLAIM]: randomBytes(16).toString("base64url") })
}

/** `next` with the session id of `previous` kept, when the `jwt` callback dropped or changed it. */
export function carrySessionId(previous: JWT, next: JWT): JWT {
  const id = jwtSessionId(previous)
  return id === undefined || next[SESSION_ID_CLAIM] === id ? next : { ...next, [SESSION_ID_CLAIM]: id }
}

/** The reference of a database session: its public id. */
export const databaseSessionRef = (token: string): string => sessionId(token)
