/**
 * Which of our sessions an OpenID provider's session (`sid`) started, for back-channel logout by `sid`
 * (Back-Channel Logout 1.0 §2.4, §2.7). At an OIDC sign-in whose ID token carries `sid`, the new session
 * is noted in the server-state port: one record per provider session, `logout-sid:{sid}:<provider>`,
 * one field per session (its reference, ./session-ref.ts) holding the user id, kept as long as a
 * session may live.
 */
import type { ResolvedConfig } from "../../../types/resolved.js"
import { stateKey } from "../../limits/server-state.js"

/** A session the provider's session started. */
export interface SidSession {
  readonly userId: string
  readonly ref: string
}

const sidKey = (providerId: string, sid: string) => stateKey("logout-sid", sid, providerId)

/** Notes that the provider session `sid` at `providerId` started the session `ref` of `userId`. */
export async function rememberSidSession(config: ResolvedConfig, providerId: string, sid: string, session: SidSession): Promise<void> {
  const keep = Math.max(config.jwt.maxAge, config.session.maxAge) * 1000
  await config.serverState.setFields(sidKey(providerId, sid), { [session.ref]: session.userId }, keep)
}

/** The sessions the provider session `sid` started (none when unknown or expired). */
export async function sidSessions(config: ResolvedConfig, providerId: string, sid: string): Promise<SidSession[]> {
  const fields = await config.serverState.getFields(sidKey(providerId, sid))
  return Object.entries(fields).map(([ref, userId]) => ({ ref, userId }))
}

/** Forgets sessions of the provider session `sid` (they ended). */
export async function forgetSidSessions(config: ResolvedConfig, providerId: string, sid: string, refs: readonly string[]): Promise<void> {
  if (refs.length > 0) await config.serverState.deleteFields(sidKey(providerId, sid), refs)
}
