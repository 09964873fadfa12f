/**
 * Flow state in Redis: `RedisFlowStore(client, { prefix, ttl })`, set as `flowStore` in the config; and
 * the server-state port, `RedisServerState(client, { prefix })`, set as `serverState` (single use,
 * attempt counts and revocation shared by every instance; see ./redis-server-state.ts).
 *
 * The flow cookie then carries only a random id (128 bits); the sealed, versioned envelope lives in Redis
 * under that id with a TTL (`SET … PX`). Resuming a flow takes it atomically (`GETDEL`), so a replayed
 * callback finds nothing; a flow that rests again is saved under a fresh id. Any number of app instances
 * sharing the Redis serve the same flows.
 *
 * The store never hangs a request: every command is also bounded here (`commandTimeout`, default 2 s),
 * and a failure is `FlowStoreUnavailable` (`error=Configuration`), with no flow cookie set. Create the
 * client with {@link failFastRedisOptions} so commands fail at once while Redis is down.
 *
 * Redis Cluster: pass a node-redis `createCluster` client instead, made with
 * {@link failFastClusterOptions}; the store follows its failovers itself ({@link followFailover}, once
 * per client) and warns once at start-up about a cluster client made without fail-fast options. Every command of the store,
 * the port and the Redis adapter names one key (Lua scripts touch only the keys passed to them), so each
 * is routed to one slot; no command lists keys.
 *
 * @example
 * ```ts
 * import { createClient } from "redis"
 * import { RedisFlowStore, failFastRedisOptions } from "authchart/stores/redis"
 * const redis = await createClient(failFastRedisOptions(process.env.REDIS_URL!)).on("error", console.error).connect()
 * const config = { ...authConfig, flowStore: RedisFlowStore(redis) }
 * ```
 */
import { randomBytes } from "node:crypto"
import { FlowStateError } from "../errors.js"
import { clearChunked, readChunked } from "../runtime/http/cookies.js"
import { type FlowEnvelope, type FlowStore, type FlowStoreIO, sealEnvelope, unsealEnvelope } from "../runtime/engine/store.js"
import { bounded as boundedCommand } from "./redis-bounded.js"
import { adoptRedisClient } from "./redis-client.js"
import { extended } from "../runtime/config/plain-object.js"

export { RedisServerState, type RedisServerStateClient, type RedisServerStateOptions } from "./redis-server-state.js"
export {
  type FailoverCluster,
  type FollowFailoverOptions,
  failFastClusterOptions,
  failFastRedisOptions,
  followFailover,
} from "./redis-client.js"

const bounded = <T>(work: Promise<T>, ms: number, what: string) =>
  boundedCommand(work, ms, what, "The sign-in state store (Redis) is unavailable.")

/** The commands the store uses, as node-redis v4/v5 clients (and compatible ones) provide them. */
export interface RedisFlowStoreClient {
  set(key: string, value: string, options: { PX: number }): Promise<unknown>
  getDel(key: string): Promise<string | null>
  del(key: string): Promise<unknown>
}

/** Options of `RedisFlowStore`. */
export interface RedisFlowStoreOptions {
  /** Key prefix. Default `authchart:flow:`. */
  prefix?: string
  /** Upper bound on one Redis command, in milliseconds. Default 2 000. */
  commandTimeout?: number
}

const ID = /^[A-Za-z0-9_-]{22}$/

/**
 * The flow store on Redis (one server or a cluster): the cookie holds a random id, the sealed envelope
 * sits at `prefix + cookieName + ":" + id` with the flow's TTL, taken once on resume (`GETDEL`).
 */
export function RedisFlowStore(client: RedisFlowStoreClient, options: RedisFlowStoreOptions = {}): FlowStore {
  const prefix = options.prefix ?? "authchart:flow:"
  const limit = options.commandTimeout ?? 2000
  adoptRedisClient(client)
  const keyOf = (io: FlowStoreIO, id: string) => `${prefix}${io.cookieName}:${id}`
  const idOf = (io: FlowStoreIO) => {
    const id = readChunked(io.cookies, io.cookieName)
    return id && ID.test(id) ? id : undefined
  }
  return {
    async load(io) {
      const raw = readChunked(io.cookies, io.cookieName)
      if (!raw) return null
      const id = idOf(io)
      if (!id) throw new FlowStateError("The sign-in state reference is malformed.")
      const sealed = await bounded(client.getDel(keyOf(io, id)), limit, "GETDEL")
      if (!sealed) return null
      return unsealEnvelope(sealed, io.secrets, io.cookieName)
    },
    async save(envelope: FlowEnvelope, io) {
      const ttlMs = envelope.exp * 1000 - io.now
      if (ttlMs <= 0) throw new FlowStateError("The sign-in state has expired.")
      const id = randomBytes(16).toString("base64url")
      await bounded(client.set(keyOf(io, id), await sealEnvelope(envelope, io.secrets, io.cookieName), { PX: ttlMs }), limit, "SET")
      const maxAge = Math.ceil(ttlMs / 1000)
      const cleared = clearChunked(io.cookies, io.cookieName, io.cookieOptions).filter((c) => c.name !== io.cookieName)
      return [...cleared, { name: io.cookieName, value: id, options: extended(io.cookieOptions, { maxAge }) }]
    },
    async clear(io) {
      const id = idOf(io)
      if (id) await bounded(client.del(keyOf(io, id)), limit, "DEL").catch(() => undefined)
      return clearChunked(io.cookies, io.cookieName, io.cookieOptions)
    },
    tokens: {
      async put(key, value, ttlMs) {
        await bounded(client.set(`${prefix}token:${key}`, value, { PX: Math.max(1, Math.floor(ttlMs)) }), limit, "SET")
      },
      async take(key) {
        return bounded(client.getDel(`${prefix}token:${key}`), limit, "GETDEL")
      },
    },
  }
}
