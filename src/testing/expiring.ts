/**
 * The test IdP's short-lived records (pending logins, codes, access tokens) kept in a Map that cannot
 * grow without bound: every entry says when it expires; a write to a full map sweeps the expired
 * entries, and if none had expired the oldest tenth goes (a forgotten login, code or token is answered
 * as an expired one).
 */

/** An entry that expires at `expires` (ms since the epoch). */
export interface Expiring {
  readonly expires: number
}

/** Sets `key` in `map`, first making room when the map holds `max` entries (expired ones, then the oldest). */
export function putExpiring<V extends Expiring>(map: Map<string, V>, key: string, value: V, now: number, max = 10_000): void {
  if (!map.has(key) && map.size >= max) {
    for (const [k, v] of map) if (v.expires <= now) map.delete(k)
    const keep = Math.floor(max * 0.9)
    for (const k of map.keys()) {
      if (map.size <= keep) break
      map.delete(k)
    }
  }
  map.set(key, value)
}
