/**
 * The server-state port: the few guarantees a cookie cannot give. "This snapshot, code, challenge or
 * token was already used" (`claim`), "this account failed 5 times in 15 minutes" (`count`), "this
 * user's sessions end now" (`setNotBefore`/`getNotBefore`), and a few small per-user records (the fields
 * verbs: a user's sessions and linked accounts, for listing and revoking). One small interface, a bounded in-memory
 * implementation (the default, one per resolved config), and `RedisServerState` in
 * `authchart/stores/redis` for apps that run several instances.
 *
 * Keys are built with {@link stateKey}: `kind:{owner}:part…`. The braces are a Redis Cluster hash tag, so
 * every key of one owner (a user, a flow) lands in one slot. Every verb touches a single key except
 * `setIfLocked`, whose two keys must share their owner (checked by {@link sameOwner}).
 *
 * Besides the security guarantees the port keeps small values with a TTL (`get`/`set`: a provider's
 * current token set) and owned locks (`lock`/`unlock`/`setIfLocked`: one token refresh at a time across
 * instances, its result written only while the lock is still held).
 */
import { FlowStoreUnavailable } from "../errors.js"

/** What `count` answers: the hits in the current window (this one included) and when it ends. */
export interface WindowCount {
  readonly count: number
  /** Milliseconds since the epoch when the window (and the count) ends. */
  readonly resetAt: number
}

/**
 * The port. Every method is atomic on its own; implementations bound each call in time and throw
 * (never hang) when their backend is unreachable, so callers fail closed.
 *
 * @example A custom implementation only needs these eight verbs:
 * ```ts
 * const config = { ...authConfig, serverState: RedisServerState(redis, { prefix: "myapp:state:" }) }
 * ```
 */
export interface ServerState {
  /**
   * Claims `key` for `ttlMs` milliseconds: true the first time, false while an earlier claim lives.
   * Single-use snapshots, codes, challenges and tokens; also a lock that expires on its own.
   */
  claim(key: string, ttlMs: number): Promise<boolean>
  /**
   * Adds one hit to `key`'s fixed window (which starts at the first hit and lasts `windowMs`) and
   * answers the count so far. Attempt caps and rate limits.
   */
  count(key: string, windowMs: number): Promise<WindowCount>
  /** Forgets `key`: a count starts again at zero, a claim (a lock) is released, a record is gone. */
  reset(key: string): Promise<void>
  /**
   * Sets the moment (ms since the epoch) before which the user's sessions are no longer valid, kept
   * for `ttlMs`. A later moment replaces an earlier one, never the reverse.
   */
  setNotBefore(userId: string, at: number, ttlMs: number): Promise<void>
  /** The user's "not before" moment (ms since the epoch), or null. */
  getNotBefore(userId: string): Promise<number | null>
  /**
   * Sets `fields` of the record at `key` (other fields stay), and keeps the record at least `ttlMs`
   * from now (a longer life it already has is kept). A user's session and account index.
   */
  setFields(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void>
  /** Every field of the record at `key` (an empty object when there is none). */
  getFields(key: string): Promise<Record<string, string>>
  /** Removes `fields` from the record at `key`; a record left empty is gone. */
  deleteFields(key: string, fields: readonly string[]): Promise<void>
  /** The text stored at `key` by `set` or `setIfLocked`, or null (never set, expired, or reset). */
  get(key: string): Promise<string | null>
  /** Stores `value` at `key` for `ttlMs` milliseconds, replacing what was there. */
  set(key: string, value: string, ttlMs: number): Promise<void>
  /**
   * Takes the lock `key` for `owner` (a random id of the caller) for `ttlMs`: true when taken, false
   * while another owner holds it. A lock expires on its own, so a crashed holder blocks no one for long.
   */
  lock(key: string, owner: string, ttlMs: number): Promise<boolean>
  /** Gives the lock `key` back, only if `owner` still holds it (a lock taken over after expiry stays). */
  unlock(key: string, owner: string): Promise<void>
  /**
   * In one atomic step: stores `value` at `key` for `ttlMs` only while `owner` holds the lock `lockKey`
   * (true when stored). Both keys must have the same owner tag (one Redis Cluster slot).
   */
  setIfLocked(lockKey: string, owner: string, key: string, value: string, ttlMs: number): Promise<boolean>
}

/** What `encodeURIComponent` leaves as it is: such a piece is used without a copy. */
const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()]*$/
const part = (value: string | number) => {
  const text = String(value)
  return UNRESERVED.test(text) ? text : encodeURIComponent(text)
}

/**
 * A port key: `kind:{owner}:part…`, every piece URI-encoded (so no piece can close the hash tag early or
 * fake another kind). `owner` is what the key belongs to: a user id, a flow id, a challenge.
 *
 * @example
 * ```ts
 * stateKey("totp", "user-42", 57_300_123) // "totp:{user-42}:57300123"
 * ```
 */
export function stateKey(kind: string, owner: string, ...parts: readonly (string | number)[]): string {
  let key = `${part(kind)}:{${part(owner)}}`
  for (const piece of parts) key += `:${part(piece)}`
  return key
}

/** The owner tag of a key made by {@link stateKey} (`{…}`), or the whole key when it has none. */
function ownerTag(key: string): string {
  const open = key.indexOf("{")
  const close = open === -1 ? -1 : key.indexOf("}", open + 1)
  return close > open + 1 ? key.slice(open + 1, close) : key
}

/**
 * Throws unless both keys belong to the same owner (the same `{…}` tag), so an operation on both stays
 * within one Redis Cluster slot.
 */
export function sameOwner(a: string, b: string): void {
  if (ownerTag(a) !== ownerTag(b)) throw new TypeError("server state: keys of one operation must share their {owner} tag.")
}

/** The key of a user's "not before" moment, for implementations that keep it with the other keys. */
export const notBeforeKey = (userId: string): string => stateKey("nbf", userId)

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

  const sync: SyncVerbs = {
    claim(key, ttlMs) {
      const now = clock()
      if (live(key, now)) return false
      put(key, { expires: now + Math.max(1, ttlMs), value: 1 }, now)
      return true
    },
    count(key, windowMs) {
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
    reset(key) {
      remove(key)
    },
  }
  const port: ServerState = {
    async claim(key, ttlMs) {
      return sync.claim(key, ttlMs)
    },
    async count(key, windowMs) {
      return sync.count(key, windowMs)
    },
    async reset(key) {
      sync.reset(key)
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
  syncPorts.set(port, { sync, claim: port.claim, count: port.count, reset: port.reset })
  return port
}

/** The in-memory port's `claim`, `count` and `reset`, answered at once: no promise per call. */
export interface SyncVerbs {
  claim(key: string, ttlMs: number): boolean
  count(key: string, windowMs: number): WindowCount
  reset(key: string): void
}

const syncPorts = new WeakMap<ServerState, { sync: SyncVerbs } & Pick<ServerState, "claim" | "count" | "reset">>()

/**
 * The synchronous verbs of a port made by {@link memoryServerState} whose `claim`, `count` and `reset`
 * are still its own (not replaced, spied on or wrapped: a copy of the port is another object); else
 * undefined, and the caller uses the port's promises. Same state, same answers, same refusals.
 * @example const sync = syncVerbs(config.serverState); const { count } = sync ? sync.count(key, ms) : await config.serverState.count(key, ms)
 */
export function syncVerbs(state: ServerState): SyncVerbs | undefined {
  const own = syncPorts.get(state)
  return own && state.claim === own.claim && state.count === own.count && state.reset === own.reset ? own.sync : undefined
}
