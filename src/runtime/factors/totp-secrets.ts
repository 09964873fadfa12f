/**
 * A user's TOTP secret kept by authchart in the config's server-state port: one active secret per user,
 * and one pending while an enrolment waits for its first correct code. Each is sealed (JWE, A256GCM,
 * a key derived from the newest `secret`) with the user id inside, so the port's backend never holds a
 * usable secret and a record copied to another user's key does not open for them.
 *
 * Keys: `factor:{<userId>}:totp` (active, kept {@link FACTOR_KEPT_MS}) and `factor:{<userId>}:totp-pending`
 * (kept {@link PENDING_TOTP_MS}). The default memory port forgets them on restart: an app that keeps
 * second factors needs a lasting port (`RedisServerState` with persistence, or its own).
 */
import { decryptJwt, encryptJson, newestSecret } from "../crypto/sealed.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { stateKey } from "../limits/server-state.js"

/** What the factor stores need of the config: its server-state port and its secrets (to seal). */
export type FactorStoreConfig = Pick<ResolvedConfig, "serverState" | "secrets">

/** How long an active factor record is kept from its last write: for good (a hundred years). */
export const FACTOR_KEPT_MS = 100 * 365 * 24 * 3600 * 1000
/** How long a TOTP enrolment waits for its first correct code. */
export const PENDING_TOTP_MS = 15 * 60 * 1000

const SALT = "authchart.factor.totp"

const activeKey = (userId: string) => stateKey("factor", userId, "totp")
const pendingKey = (userId: string) => stateKey("factor", userId, "totp-pending")

/** The kept record of a TOTP secret, as sealed. */
interface TotpRecord {
  /** The user it belongs to. */
  readonly u: string
  /** The base32 secret. */
  readonly s: string
  /** When it was made active or pending (ms since the epoch). */
  readonly at: number
}

async function seal(config: FactorStoreConfig, record: TotpRecord): Promise<string> {
  return encryptJson({ ...record }, newestSecret(config), SALT)
}

/** The record sealed at `key` for `userId`, or null (none, unreadable with the configured secrets, or another user's). */
async function open(config: FactorStoreConfig, key: string, userId: string): Promise<TotpRecord | null> {
  const sealed = await config.serverState.get(key)
  if (sealed === null) return null
  try {
    const { u, s, at } = await decryptJwt(sealed, config.secrets, SALT)
    return u === userId && typeof s === "string" && typeof at === "number" ? { u, s, at } : null
  } catch {
    return null
  }
}

/**
 * The user's active TOTP secret (base32), or null when they have none. `totpStep` asks this when it is
 * given no `secretFor`.
 *
 * @example const secret = await activeTotpSecret(config, "user-42") // "JBSWY3DP…" or null
 */
export async function activeTotpSecret(config: FactorStoreConfig, userId: string): Promise<string | null> {
  return (await open(config, activeKey(userId), userId))?.s ?? null
}

/** When the user's TOTP secret became active (ms since the epoch), or null when they have none. */
export async function totpActiveSince(config: FactorStoreConfig, userId: string): Promise<number | null> {
  return (await open(config, activeKey(userId), userId))?.at ?? null
}

/** Makes `secret` the user's active TOTP secret (replacing one they had) and drops a pending one. */
export async function setActiveTotpSecret(config: FactorStoreConfig, userId: string, secret: string, now = Date.now()): Promise<void> {
  await config.serverState.set(activeKey(userId), await seal(config, { u: userId, s: secret, at: now }), FACTOR_KEPT_MS)
  await config.serverState.reset(pendingKey(userId))
}

/** Removes the user's active TOTP secret: TOTP no longer asked at sign-in. */
export async function removeTotpSecret(config: FactorStoreConfig, userId: string): Promise<void> {
  await config.serverState.reset(activeKey(userId))
}

/** Keeps `secret` as the user's pending enrolment (replacing an earlier one) for {@link PENDING_TOTP_MS}. */
export async function setPendingTotpSecret(config: FactorStoreConfig, userId: string, secret: string, now = Date.now()): Promise<void> {
  await config.serverState.set(pendingKey(userId), await seal(config, { u: userId, s: secret, at: now }), PENDING_TOTP_MS)
}

/** The user's pending enrolment secret, or null when none waits (never started, confirmed, or expired). */
export async function pendingTotpSecret(config: FactorStoreConfig, userId: string): Promise<string | null> {
  return (await open(config, pendingKey(userId), userId))?.s ?? null
}
