/**
 * The default server-state port: one process, bounded and expiring (`memoryServerState`). The port's
 * interface and its keys are in server-state.ts.
 */
import { FlowStoreUnavailable } from "../../errors.js"
import { type ServerState, notBeforeKey, sameOwner } from "./server-state.js"

/** Options of the default in-memory server-state port (one instance). */
export interface MemoryServerStateOptions {
  /**
   * Upper bound on live entries, held twice over: once for the rate limits' keys, once for the rest.
   * Default 100 000 each (a few tens of MB at most). When full, expired entries are swept; if none had
   * expired, a new key is refused (the call throws `FlowStoreUnavailable`), never a live claim,
   * revocation or attempt count forgotten; the rate limits' own keys make room by forgetting their oldest.
   */
  maxEntries?: number
  /**
   * Upper bound on the fields of one record (`setFields`). Default 1,000. Past it the fields written
   * least recently go first. Safe for what records hold: indexes whose truth is elsewhere (a user's
   * sessions and accounts, checked against the adapter; a dropped session is still refused by the "not
   * before" moment and indexed again at its next read) and one error flag per provider.
   */
  maxFields?: number
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number
}

interface Entry {
  expires: number
  value: number
  /** The fields of a record (`setFields`). */
  fields?: Map<string, string>
  /** The text of `set`, or a lock's owner. */
  text?: string
}

/** The keys of the rate limits (`stateKey("rl", …)`). */
const RATE_LIMIT_PREFIX = "rl:"
/** Expired entries are swept at most this often on writes (a sweep walks every entry). */
const SWEEP_EVERY_MS = 60_000
/** While full, at most one extra sweep per this interval, so a flood of new keys cannot make each write walk the map. */
const FULL_SWEEP_EVERY_MS = 1_000

/**
 * The default port: one process, bounded and expiring. Expired entries are swept at most once a minute
 * on writes, and again (at most once a second) when the map is full. If it is still full, a new key is
 * refused: the call throws `FlowStoreUnavailable`, as a shared port does when its backend is down, and
 * callers fail closed (a flow resume, a code or a challenge is refused; the password rate-limit rules
 * refuse, the others let the request through and log it). Forgetting a live entry instead would weaken
 * what the port guarantees: a forgotten claim lets a used code or flow state be replayed, a forgotten
 * "not before" brings back revoked sessions, a forgotten count restarts a lockout. Keys already present
 * are always updated. The rate limits' keys (kind `rl`: per-client and per-account counts, the distinct
 * accounts a client tried) are held apart, under their own bound, and when that is full the oldest is
 * forgotten instead: anyone can make such keys by sending requests from many addresses, and refusing
 * them would let a flood refuse every sign-in; forgetting one only restarts an old window. Enough for one
 * instance; several instances, or more live keys than `maxEntries`, need a shared port such as
 * `RedisServerState`.
 *
 * @example
 * ```ts
 * const config = { ...authConfig, serverState: memoryServerState({ maxEntries: 10_000 }) }
 * ```
 */
export function memoryServerState(options: MemoryServerStateOptions = {}): ServerState {
  const max = Math.max(1, options.maxEntries ?? 100_000)
  const maxFields = Math.max(1, options.maxFields ?? 1_000)
  const clock = options.now ?? (() => Date.now())
  const held = new Map<string, Entry>()
  /** The rate limits' keys: forgetting the oldest when full only restarts an old window. */
  const limits = new Map<string, Entry>()
  const mapOf = (key: string) => (key.startsWith(RATE_LIMIT_PREFIX) ? limits : held)
  let nextSweep = clock() + SWEEP_EVERY_MS
  let lastFullSweep = Number.NEGATIVE_INFINITY

  const sweep = (now: number) => {
    for (const map of [held, limits]) for (const [key, entry] of map) if (entry.expires <= now) map.delete(key)
    nextSweep = now + SWEEP_EVERY_MS
  }
  const remove = (key: string) => mapOf(key).delete(key)
  const live = (key: string, now: number): Entry | undefined => {
    const entry = mapOf(key).get(key)
    if (entry && entry.expires <= now) {
      remove(key)
      return undefined
    }
    return entry
  }
  const put = (key: string, entry: Entry, now: number) => {
    if (now >= nextSweep) sweep(now)
    const map = mapOf(key)
    if (!map.has(key) && map.size >= max) {
      if (now - lastFullSweep >= FULL_SWEEP_EVERY_MS) {
        lastFullSweep = now
        sweep(now)
      }
      if (map.size >= max && map === limits) {
        const oldest = limits.keys().next()
        if (!oldest.done) limits.delete(oldest.value)
      } else if (map.size >= max) {
        throw new FlowStoreUnavailable(`The in-memory server state is full (${max} live entries); the new key is refused.`)
      }
    }
    map.set(key, entry)
  }

  const port: ServerState = {
    async claim(key, ttlMs) {
      const now = clock()
      if (live(key, now)) return false
      put(key, { expires: now + Math.max(1, ttlMs), value: 1 }, now)
      return true
    },
    async count(key, windowMs) {
      const now = clock()
      const entry = live(key, now)
      if (entry) {
        entry.value += 1
        return { count: entry.value, resetAt: entry.expires }
      }
      const fresh = { expires: now + Math.max(1, windowMs), value: 1 }
      put(key, fresh, now)
      return { count: 1, resetAt: fresh.expires }
    },
    async reset(key) {
      remove(key)
    },
    async setNotBefore(userId, at, ttlMs) {
      const now = clock()
      const key = notBeforeKey(userId)
      const current = live(key, now)
      put(key, { expires: now + Math.max(1, ttlMs), value: Math.max(at, current?.value ?? at) }, now)
    },
    async getNotBefore(userId) {
      return live(notBeforeKey(userId), clock())?.value ?? null
    },
    async setFields(key, fields, ttlMs) {
      const now = clock()
      const current = live(key, now)
      const expires = Math.max(now + Math.max(1, ttlMs), current?.expires ?? 0)
      const record = new Map(current?.fields ?? [])
      for (const [field, value] of Object.entries(fields)) {
        // written again = written last: the least recently written fields go first past maxFields
        record.delete(field)
        record.set(field, value)
      }
      while (record.size > maxFields) record.delete(record.keys().next().value as string)
      put(key, { expires, value: 0, fields: record }, now)
    },
    async getFields(key) {
      return Object.fromEntries(live(key, clock())?.fields ?? [])
    },
    async deleteFields(key, fields) {
      const record = live(key, clock())?.fields
      if (!record) return
      for (const field of fields) record.delete(field)
      if (record.size === 0) remove(key)
    },
    async get(key) {
      return live(key, clock())?.text ?? null
    },
    async set(key, value, ttlMs) {
      const now = clock()
      put(key, { expires: now + Math.max(1, ttlMs), value: 0, text: value }, now)
    },
    async lock(key, owner, ttlMs) {
      const now = clock()
      if (live(key, now)) return false
      put(key, { expires: now + Math.max(1, ttlMs), value: 0, text: owner }, now)
      return true
    },
    async unlock(key, owner) {
      if (live(key, clock())?.text === owner) remove(key)
    },
    async setIfLocked(lockKey, owner, key, value, ttlMs) {
      sameOwner(lockKey, key)
      const now = clock()
      if (live(lockKey, now)?.text !== owner) return false
      put(key, { expires: now + Math.max(1, ttlMs), value: 0, text: value }, now)
      return true
    },
  }
  return port
}
