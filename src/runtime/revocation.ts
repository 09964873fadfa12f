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
 */
import { randomBytes } from "./random.js"
import type { Adapter, CompleteAdapter } from "../adapters/types.js"
import type { ResolvedConfig } from "./config.js"
import type { RequestContext } from "./context.js"
import { safeAdapter } from "./adapter.js"
import { forgetUserSessions, indexedSessions } from "./session-index.js"

interface Cached {
  readonly value: number | null
  readonly until: number
}

const CACHE_MAX = 10_000
const caches = new WeakMap<ResolvedConfig, Map<string, Cached>>()

function cacheOf(config: ResolvedConfig): Map<string, Cached> {
  let cache = caches.get(config)
  if (!cache) caches.set(config, (cache = new Map()))
  return cache
}

function remember(config: ResolvedConfig, userId: string, value: number | null, now: number): void {
  const cache = cacheOf(config)
  cache.delete(userId)
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(userId, { value, until: now + config.session.revocationCacheMs })
}

/** The user's "not before" (ms), from this instance's cache unless it is stale or `fresh` is asked. */
async function notBefore(config: ResolvedConfig, userId: string, now: number, fresh: boolean): Promise<number | null> {
  const hit = cacheOf(config).get(userId)
  if (!fresh && hit && hit.until > now) return hit.value
  const value = await config.serverState.getNotBefore(userId)
  remember(config, userId, value, now)
  return value
}

/**
 * Whether a session of `userId` issued at `issuedAt` (ms) was revoked. `fresh` skips the cache (before
 * re-issuing). Throws when the port cannot answer; callers then treat the session as absent.
 */
export async function isRevoked(ctx: RequestContext, userId: string, issuedAt: number, fresh = false): Promise<boolean> {
  const at = await notBefore(ctx.config, userId, ctx.now, fresh)
  return at !== null && issuedAt < at
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
  const keepFor = Math.max(config.jwt.maxAge, config.session.maxAge) * 1000
  await config.serverState.setNotBefore(userId, now, keepFor)
  remember(config, userId, now, now)
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
