/**
 * The server-state port on Redis: `RedisServerState(client, { prefix })`, set as `serverState` in the
 * config, shared by every app instance. Each verb is one atomic round trip on one key:
 *
 * | verb | Redis |
 * |---|---|
 * | `claim` | `SET key 1 NX PX ttl` |
 * | `count` | one Lua script: `INCR`, and `PEXPIRE` when the window is new; answers the count and `PTTL` |
 * | `reset` | `DEL` |
 * | `setNotBefore` | one Lua script: keep the later moment, `PX ttl` |
 * | `getNotBefore` | `GET` |
 * | `setFields` | one Lua script: `HSET`, and `PEXPIRE` when the record would live shorter |
 * | `getFields` | `HGETALL` (through `EVAL`) |
 * | `deleteFields` | `HDEL` (through `EVAL`) |
 * | `get` / `set` | `GET` / `SET key value PX ttl` |
 * | `lock` | `SET key owner NX PX ttl` |
 * | `unlock` | one Lua script: `DEL` when the value is still the owner |
 * | `setIfLocked` | one Lua script on two keys of one owner tag (one slot): `SET … PX` when the lock's value is the owner |
 *
 * Keys are `prefix + stateKey(…)`, e.g. `authchart:state:totp:{user-42}:57300123`: the `{…}` hash tag
 * puts every key of one owner in one Redis Cluster slot, and the prefix may not contain braces (it would
 * capture the tag). Every command is bounded by `commandTimeout` (default 2 s); a failure is
 * `FlowStoreUnavailable` and the request fails closed. Create the client with `failFastRedisOptions`
 * (a cluster client with `failFastClusterOptions`; its failovers are followed for you).
 *
 * @example
 * ```ts
 * import { createClient } from "redis"
 * import { RedisFlowStore, RedisServerState, failFastRedisOptions } from "authchart/stores/redis"
 * const redis = await createClient(failFastRedisOptions(process.env.REDIS_URL!)).on("error", console.error).connect()
 * const config = { ...authConfig, flowStore: RedisFlowStore(redis), serverState: RedisServerState(redis) }
 * ```
 */
import { type ServerState, notBeforeKey, sameOwner } from "../runtime/limits/server-state.js"
import { bounded } from "./redis-bounded.js"
import { adoptRedisClient } from "./redis-client.js"

/** The commands the port uses, as node-redis v4/v5 clients provide them. */
export interface RedisServerStateClient {
  set(key: string, value: string, options: { PX: number; NX?: true }): Promise<unknown>
  get(key: string): Promise<string | null>
  del(key: string): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
}

/** Options of `RedisServerState`. */
export interface RedisServerStateOptions {
  /** Key prefix, without `{` or `}`. Default `authchart:state:`. */
  prefix?: string
  /** Upper bound on one Redis command, in milliseconds. Default 2 000. */
  commandTimeout?: number
}

const COUNT = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`

const NOT_BEFORE = `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`

const SET_FIELDS = `redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1`

const GET_FIELDS = "return redis.call('HGETALL', KEYS[1])"
const DELETE_FIELDS = "return redis.call('HDEL', KEYS[1], unpack(ARGV))"

/** HGETALL's reply as an object: a flat `[field, value, …]` array (RESP2/Lua) or a map (RESP3). */
function fieldsOf(reply: unknown): Record<string, string> {
  if (Array.isArray(reply)) {
    const out: Record<string, string> = {}
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1])
    return out
  }
  if (reply instanceof Map) return Object.fromEntries([...reply].map(([k, v]) => [String(k), String(v)]))
  if (reply && typeof reply === "object") return Object.fromEntries(Object.entries(reply).map(([k, v]) => [k, String(v)]))
  return {}
}

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`

const SET_IF_LOCKED = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`

const UNAVAILABLE = "The server-state store (Redis) is unavailable."
const ms = (value: number) => String(Math.max(1, Math.ceil(value)))

/**
 * The server-state port on a Redis shared by every instance (single use across instances, attempt
 * counts per user, session revocation). See the module documentation for the commands and key layout.
 */
export function RedisServerState(client: RedisServerStateClient, options: RedisServerStateOptions = {}): ServerState {
  const prefix = options.prefix ?? "authchart:state:"
  if (/[{}]/.test(prefix)) throw new TypeError("RedisServerState: the prefix may not contain `{` or `}` (Redis Cluster hash tags).")
  const limit = options.commandTimeout ?? 2000
  adoptRedisClient(client)
  const run = <T>(work: Promise<T>, what: string) => bounded(work, limit, what, UNAVAILABLE)
  const full = (key: string) => `${prefix}${key}`
  return {
    async claim(key, ttlMs) {
      const reply = await run(client.set(full(key), "1", { PX: Math.max(1, Math.ceil(ttlMs)), NX: true }), "SET NX")
      return reply !== null && reply !== undefined
    },
    async count(key, windowMs) {
      const reply = await run(client.eval(COUNT, { keys: [full(key)], arguments: [ms(windowMs)] }), "EVAL count")
      const [count, ttl] = Array.isArray(reply) ? reply.map(Number) : []
      if (count === undefined || ttl === undefined || !Number.isFinite(count) || !Number.isFinite(ttl)) {
        throw new TypeError("RedisServerState: unexpected reply to the count script.")
      }
      return { count, resetAt: Date.now() + ttl }
    },
    async reset(key) {
      await run(client.del(full(key)), "DEL")
    },
    async setNotBefore(userId, at, ttlMs) {
      await run(
        client.eval(NOT_BEFORE, { keys: [full(notBeforeKey(userId))], arguments: [String(Math.floor(at)), ms(ttlMs)] }),
        "EVAL not-before",
      )
    },
    async getNotBefore(userId) {
      const value = await run(client.get(full(notBeforeKey(userId))), "GET")
      const at = value === null ? Number.NaN : Number(value)
      return Number.isFinite(at) ? at : null
    },
    async setFields(key, fields, ttlMs) {
      const pairs = Object.entries(fields).flat()
      if (pairs.length === 0) return
      await run(client.eval(SET_FIELDS, { keys: [full(key)], arguments: [ms(ttlMs), ...pairs] }), "EVAL set-fields")
    },
    async getFields(key) {
      return fieldsOf(await run(client.eval(GET_FIELDS, { keys: [full(key)], arguments: [] }), "EVAL get-fields"))
    },
    async deleteFields(key, fields) {
      if (fields.length === 0) return
      await run(client.eval(DELETE_FIELDS, { keys: [full(key)], arguments: [...fields] }), "EVAL delete-fields")
    },
    async get(key) {
      return run(client.get(full(key)), "GET")
    },
    async set(key, value, ttlMs) {
      await run(client.set(full(key), value, { PX: Math.max(1, Math.ceil(ttlMs)) }), "SET")
    },
    async lock(key, owner, ttlMs) {
      const reply = await run(client.set(full(key), owner, { PX: Math.max(1, Math.ceil(ttlMs)), NX: true }), "SET NX lock")
      return reply !== null && reply !== undefined
    },
    async unlock(key, owner) {
      await run(client.eval(UNLOCK, { keys: [full(key)], arguments: [owner] }), "EVAL unlock")
    },
    async setIfLocked(lockKey, owner, key, value, ttlMs) {
      sameOwner(lockKey, key)
      const reply = await run(
        client.eval(SET_IF_LOCKED, { keys: [full(lockKey), full(key)], arguments: [owner, value, ms(ttlMs)] }),
        "EVAL set-if-locked",
      )
      return Number(reply) === 1
    },
  }
}
