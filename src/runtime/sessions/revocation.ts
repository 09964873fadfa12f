/**
 * Ending a user's sessions everywhere, JWT sessions included: a per-user "not before" moment in the
 * server-state port. Every session read compares the session's issue time with it (through a short
 * per-instance cache, `session.revocationCacheTtl`, so reads stay cheap; a read that is about to
 * re-issue the session asks the port itself, so a stale cache cannot mint a fresh token for a revoked
 * session). Database sessions are also deleted when the adapter can (`deleteUserSessions`).
 *
 * A session token's issue time: authchart's own tokens carry a UUIDv7 `jti` (a standard UUID whose first
 * 48 bits are the millisecond it was made); any other Auth.js token is judged by its `iat` second, from
 * the start of that second, so a revocation covers every such token of the second it happened in. A
 * session is revoked when it was issued before the "not before" moment (strictly).
 *
 * One session alone (back-channel logout by `sid`) is revoked by its reference (./session-ref.ts) in the
 * user's record `srev:{userId}` (one field per session, kept as long as a session may live); the same
 * cache holds it next to the "not before", so a session read asks the port at most once per
 * `revocationCacheTtl` per user.
 */
import { randomBytes } from "../crypto/random.js"
import type { Adapter, CompleteAdapter } from "../../adapters/types.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import type { RequestContext } from "../http/context.js"
import { safeAdapter } from "./adapter.js"
import { forgetUserSessions, indexedSessions } from "./user-index.js"
import { stateKey } from "../limits/server-state.js"

interface Revoked {
  /** The user's "not before" (ms), or null. */
  readonly value: number | null
  /** The references of the user's sessions revoked one by one. */
  readonly sessions: ReadonlySet<string>
}

interface Cached extends Revoked {
  readonly until: number
}

const NONE: ReadonlySet<string> = new Set()
const revokedSessionsKey = (userId: string) => stateKey("srev", userId)
const keepRevocation = (config: ResolvedConfig) => Math.max(config.jwt.maxAge, config.session.maxAge) * 1000

const CACHE_MAX = 10_000
const caches = new WeakMap<ResolvedConfig, Map<string, Cached>>()

function cacheOf(config: ResolvedConfig): Map<string, Cached> {
  let cache = caches.get(config)
  if (!cache) caches.set(config, (cache = new Map()))
  return cache
}

function remember(config: ResolvedConfig, userId: string, revoked: Revoked, now: number): void {
  const cache = cacheOf(config)
  cache.delete(userId)
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(userId, { ...revoked, until: now + config.session.revocationCacheMs })
}

/** The user's revocations, from this instance's cache unless it is stale or `fresh` is asked. */
async function revocationsOf(config: ResolvedConfig, userId: string, now: number, fresh: boolean): Promise<Revoked> {
  const hit = cacheOf(config).get(userId)
  if (!fresh && hit && hit.until > now) return hit
  const [value, fields] = await Promise.all([
    config.serverState.getNotBefore(userId),
    config.serverState.getFields(revokedSessionsKey(userId)),
  ])
  const names = Object.keys(fields)
  const revoked = { value, sessions: names.length === 0 ? NONE : new Set(names) }
  remember(config, userId, revoked, now)
  return revoked
}

/**
 * Whether a session of `userId` issued at `issuedAt` (ms), named `ref` when it has a reference, was
 * revoked. `fresh` skips the cache (before re-issuing). Throws when the port cannot answer; callers then
 * decide (a session read lets the session stand, logged).
 */
export async function isRevoked(ctx: RequestContext, userId: string, issuedAt: number, fresh = false, ref?: string): Promise<boolean> {
  const { value, sessions } = await revocationsOf(ctx.config, userId, ctx.now, fresh)
  return (value !== null && issuedAt < value) || (ref !== undefined && sessions.has(ref))
}

/**
 * Revokes one session of `userId`, named by its reference (./session-ref.ts), on every instance: its
 * next read is refused (other instances notice within `session.revocationCacheTtl`).
 */
export async function revokeSessionRef(config: ResolvedConfig, userId: string, ref: string, now: number): Promise<void> {
  await config.serverState.setFields(revokedSessionsKey(userId), { [ref]: String(now) }, keepRevocation(config))
  const known = cacheOf(config).get(userId)
  if (known) remember(config, userId, { value: known.value, sessions: new Set([...known.sessions, ref]) }, now)
}

/** A UUIDv7 (RFC 9562 §5.7) for the millisecond `at`: 48-bit time, version 7, variant 10, random rest. */
export function uuidv7(at: number): string {
  const bytes = randomBytes(16)
  bytes.writeUIntBE(Math.max(0, Math.floor(at)), 0, 6)
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f)
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f)
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * When a session token was issued, in ms: the UUIDv7 `jti` when it agrees with `iat` (authchart's own
 * tokens), else the start of the `iat` second, else 0 (a token without `iat` predates any revocation).
 */
export function tokenIssuedAt(token: { readonly iat?: unknown; readonly jti?: unknown }): number {
  const iat = typeof token.iat === "number" && Number.isFinite(token.iat) ? token.iat : undefined
  if (iat === undefined) return 0
  if (typeof token.jti === "string" && UUID_V7.test(token.jti)) {
    const at = Number.parseInt(token.jti.slice(0, 8) + token.jti.slice(9, 13), 16)
    if (Math.floor(at / 1000) === iat) return at
  }
  return iat * 1000
}

/** Revokes the user's sessions as of `now` (ms) for a resolved config; see `revokeSessions`. */
export async function revokeUser(config: ResolvedConfig, userId: string, now: number): Promise<void> {
  await config.serverState.setNotBefore(userId, now, keepRevocation(config))
  remember(config, userId, { value: now, sessions: cacheOf(config).get(userId)?.sessions ?? NONE }, now)
  const { adapter } = config
  if (config.session.strategy !== "database" || !adapter) return
  if (deletesUserSessions(adapter)) await adapter.deleteUserSessions(userId)
  else await deleteIndexedSessions(config, adapter, userId)
  await forgetUserSessions(config, userId)
}

/**
 * Deletes the user's database sessions one by one through the adapter's `deleteSession`, found by the
 * session index (an Auth.js adapter cannot list them). A session the index missed is still refused at its
 * next read by the "not before" moment, and deleted then.
 */
async function deleteIndexedSessions(config: ResolvedConfig, appAdapter: Adapter, userId: string): Promise<void> {
  const adapter = safeAdapter(appAdapter, config.logger)
  for (const { token } of await indexedSessions(config, userId)) {
    await adapter.deleteSession(token).catch((err: unknown) => config.logger.debug("session-revoked", { deleted: false, err: String(err) }))
  }
}

/** Whether the adapter can delete every session of a user (authchart's own adapters can). */
function deletesUserSessions(adapter: Adapter): adapter is Adapter & Pick<CompleteAdapter, "deleteUserSessions"> {
  return "deleteUserSessions" in adapter && typeof adapter.deleteUserSessions === "function"
}
