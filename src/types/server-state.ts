/**
 * The server-state port: single-use claims, counts in a window, per-user "not before" moments, small
 * records and owned locks. Types only; `memoryServerState()` and `RedisServerState` implement it.
 */

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
   * (true when stored). Both keys must have the same owner tag (one Redis Cluster slot). With `key` the
   * lock itself and `value` its owner, it renews the lock for `ttlMs` (a lock taken over stays the other's).
   */
  setIfLocked(lockKey: string, owner: string, key: string, value: string, ttlMs: number): Promise<boolean>
}
