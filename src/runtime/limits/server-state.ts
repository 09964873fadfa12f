/**
 * The server-state port: the few guarantees a cookie cannot give. "This snapshot, code, challenge or
 * token was already used" (`claim`), "this account failed 5 times in 15 minutes" (`count`), "this
 * user's sessions end now" (`setNotBefore`/`getNotBefore`), and a few small per-user records (the fields
 * verbs: a user's sessions and linked accounts, for listing and revoking). One small interface; its bounded in-memory
 * implementation (the default, one per resolved config) is in server-state-memory.ts, and `RedisServerState`
 * in `authchart/stores/redis` serves apps that run several instances.
 *
 * Keys are built with {@link stateKey}: `kind:{owner}:part…`. The braces are a Redis Cluster hash tag, so
 * every key of one owner (a user, a flow) lands in one slot. Every verb touches a single key except
 * `setIfLocked`, whose two keys must share their owner (checked by {@link sameOwner}).
 *
 * Besides the security guarantees the port keeps small values with a TTL (`get`/`set`: a provider's
 * current token set) and owned locks (`lock`/`unlock`/`setIfLocked`: one token refresh at a time across
 * instances, its result written only while the lock is still held).
 */
import type { WindowCount, ServerState } from "../../types/server-state.js"
export type { WindowCount, ServerState }

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
