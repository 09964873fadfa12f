/**
 * The Redis adapter's client shape, and how it stores records: JSON with ISO dates revived on read, replies decoded from the
 * client's strings or buffers, TTLs from expiry dates, and key parts escaped.
 */
import { deadline } from "../stores/redis-bounded.js"
import { isDate } from "./types.js"
import type { AdapterSession, AdapterUser, VerificationToken } from "./types.js"

const decoder = new TextDecoder()

/** Throws the adapter's error for a refused write. */
export function fail(message: string): never {
  throw new Error(`RedisAdapter: ${message}`)
}

export function text(reply: unknown): string | null {
  if (typeof reply === "string") return reply
  if (reply instanceof Uint8Array) return decoder.decode(reply)
  return null
}

export function strings(reply: unknown): string[] {
  const items: unknown[] = reply instanceof Set ? [...reply] : Array.isArray(reply) ? reply : []
  return items.map(text).filter((item): item is string => item !== null)
}

/** Milliseconds from now until `expires`, at least 1 (Redis refuses a zero or negative PX). */
export function ttl(expires: Date): number {
  return Math.max(1, new Date(expires).getTime() - Date.now())
}

export function reviveDate(value: unknown): Date | null {
  return isDate(value) ? new Date(value) : null
}

export function parseUser(raw: string | null): AdapterUser | null {
  if (raw === null) return null
  const user = JSON.parse(raw) as AdapterUser
  return { ...user, emailVerified: reviveDate(user.emailVerified) }
}

export function parseSession(raw: string | null): AdapterSession | null {
  if (raw === null) return null
  const session = JSON.parse(raw) as AdapterSession
  const expires = reviveDate(session.expires)
  return expires ? { ...session, expires } : null
}

export function parseVerificationToken(raw: string | null): VerificationToken | null {
  if (raw === null) return null
  const token = JSON.parse(raw) as VerificationToken
  const expires = reviveDate(token.expires)
  return expires ? { ...token, expires } : null
}

export function parsePlain<T>(raw: string | null): T | null {
  return raw === null ? null : (JSON.parse(raw) as T)
}

/** The given fields without those explicitly set to `undefined` (an update never erases by omission). */
export function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>
}

export function part(value: string): string {
  return String(value).replace(/%/g, "%25").replace(/:/g, "%3A")
}

/**
 * The commands `RedisAdapter` sends, typed structurally so that a connected node-redis v4, v5 or v6
 * client (`createClient(...)`, or `createCluster(...)` for Redis Cluster) fits without authchart
 * importing `redis`. Every command names one key (a cluster routes it to that key's slot).
 * Replies may be strings, buffers, arrays or sets (RESP2 or RESP3); the adapter reads them all.
 */
export interface RedisAdapterClient {
  get(key: string): PromiseLike<unknown>
  set(key: string, value: string, options?: { PX?: number; NX?: boolean; XX?: boolean }): PromiseLike<unknown>
  getDel(key: string): PromiseLike<unknown>
  del(key: string): PromiseLike<unknown>
  sAdd(key: string, members: string | string[]): PromiseLike<unknown>
  sRem(key: string, members: string | string[]): PromiseLike<unknown>
  sMembers(key: string): PromiseLike<unknown>
  zAdd(key: string, members: { score: number; value: string }): PromiseLike<unknown>
  zRem(key: string, members: string | string[]): PromiseLike<unknown>
  zRange(key: string, start: number, stop: number): PromiseLike<unknown>
  zRemRangeByScore(key: string, min: number | string, max: number | string): PromiseLike<unknown>
}

/** `client` with every command bounded to `ms` (a late reply rejects; the runtime reports it as `AdapterError`). */
export function boundedClient(client: RedisAdapterClient, ms: number): RedisAdapterClient {
  const within = <T>(work: PromiseLike<T>, what: string) => deadline(work, ms, what)
  return {
    get: (key) => within(client.get(key), "GET"),
    set: (key, value, options) => within(client.set(key, value, options), "SET"),
    getDel: (key) => within(client.getDel(key), "GETDEL"),
    del: (key) => within(client.del(key), "DEL"),
    sAdd: (key, members) => within(client.sAdd(key, members), "SADD"),
    sRem: (key, members) => within(client.sRem(key, members), "SREM"),
    sMembers: (key) => within(client.sMembers(key), "SMEMBERS"),
    zAdd: (key, members) => within(client.zAdd(key, members), "ZADD"),
    zRem: (key, members) => within(client.zRem(key, members), "ZREM"),
    zRange: (key, start, stop) => within(client.zRange(key, start, stop), "ZRANGE"),
    zRemRangeByScore: (key, min, max) => within(client.zRemRangeByScore(key, min, max), "ZREMRANGEBYSCORE"),
  }
}
