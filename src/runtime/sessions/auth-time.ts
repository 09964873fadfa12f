/**
 * When the user of a session last proved who they are (`authTime`, seconds since the epoch): set by
 * every completed sign-in, refreshed by a re-authentication (step-up), read by `requireRecentAuth`.
 *
 * - JWT sessions: the claim `authTime`, written after the `jwt` callback (like `sessionId`) and carried
 *   over on every re-issue. Auth.js readers ignore the extra claim; a token Auth.js wrote has none, which
 *   reads as "no recent proof".
 * - Database sessions: the server-state key `authtime:{<session public id>}` (the public id is a hash of
 *   the session token, ./user-index.ts), kept for `session.maxAge` from the last proof. Gone (expired,
 *   a memory port restarted) reads as "no recent proof", never as a fresh one.
 */
import type { JWT } from "../../types.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { extended } from "../config/plain-object.js"
import { stateKey } from "../limits/server-state.js"
import { sessionId } from "./user-index.js"

/** The session-token claim and session JSON field holding the last proof's time. */
export const AUTH_TIME_CLAIM = "authTime"

/** Whole seconds since the epoch of a millisecond clock reading. */
export const epochSeconds = (nowMs: number): number => Math.floor(nowMs / 1000)

function validSeconds(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** The last proof's time of a decoded session token, if it has a valid one. */
export function jwtAuthTime(token: JWT | null | undefined): number | undefined {
  return validSeconds(token?.[AUTH_TIME_CLAIM])
}

/** `token` with its last proof at `nowMs` (a sign-in, a re-authentication). */
export function withAuthTime(token: JWT, nowMs: number): JWT {
  return extended(token, { [AUTH_TIME_CLAIM]: epochSeconds(nowMs) })
}

/**
 * `next` with the last proof of `previous`: the `jwt` callback can neither drop nor move it (only a
 * proof does), and a token without one stays without one.
 */
export function carryAuthTime(previous: JWT, next: JWT): JWT {
  const at = jwtAuthTime(previous)
  if (at === undefined) {
    if (!(AUTH_TIME_CLAIM in next)) return next
    const { [AUTH_TIME_CLAIM]: _, ...rest } = next
    return rest
  }
  return next[AUTH_TIME_CLAIM] === at ? next : extended(next, { [AUTH_TIME_CLAIM]: at })
}

const databaseKey = (sessionToken: string) => stateKey("authtime", sessionId(sessionToken))

/** Notes the last proof of the database session `sessionToken` at `nowMs`. Throws when the port cannot answer. */
export async function noteDatabaseAuthTime(config: ResolvedConfig, sessionToken: string, nowMs: number): Promise<void> {
  await config.serverState.set(databaseKey(sessionToken), String(epochSeconds(nowMs)), config.session.maxAge * 1000)
}

/** The last proof of the database session `sessionToken`; undefined when none is known or the port cannot answer. */
export async function databaseAuthTime(config: ResolvedConfig, sessionToken: string): Promise<number | undefined> {
  try {
    const stored = await config.serverState.get(databaseKey(sessionToken))
    return stored === null ? undefined : validSeconds(Number(stored))
  } catch {
    return undefined
  }
}

/** The database session re-issued under `to` keeps the last proof of `from` (which is forgotten). Never throws. */
export async function transferDatabaseAuthTime(config: ResolvedConfig, from: string, to: string): Promise<void> {
  const at = await databaseAuthTime(config, from)
  if (at !== undefined) await noteDatabaseAuthTime(config, to, at * 1000).catch(() => undefined)
  await forgetDatabaseAuthTime(config, from)
}

/** Forgets the last proof of an ended database session. Never throws. */
export async function forgetDatabaseAuthTime(config: ResolvedConfig, sessionToken: string): Promise<void> {
  await config.serverState.reset(databaseKey(sessionToken)).catch(() => undefined)
}
