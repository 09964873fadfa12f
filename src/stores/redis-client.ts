/**
 * node-redis client options that fail fast, for one Redis (`createClient`) and for Redis Cluster
 * (`createCluster`), and `followFailover(cluster)`, which keeps a cluster client's slot map current when
 * a master dies. Re-exported by `authchart/stores/redis`.
 *
 * @example One Redis, or a cluster (the same stores take either client):
 * ```ts
 * import { createClient, createCluster } from "redis"
 * import { failFastClusterOptions, failFastRedisOptions, followFailover } from "authchart/stores/redis"
 * const single = await createClient(failFastRedisOptions("redis://10.0.0.5:6379")).on("error", console.error).connect()
 * const cluster = createCluster(failFastClusterOptions(["redis://10.0.0.1:6379", "redis://10.0.0.2:6379"]))
 * cluster.on("error", console.error)
 * followFailover(cluster)
 * await cluster.connect()
 * ```
 */

/** Reconnect backoff: 50 ms doubling up to `cap`, never giving up (a Redis that returns is picked up again). */
const backoff = (cap: number) => (retries: number) => Math.min(50 * 2 ** retries, cap)

function failFastClientDefaults(timeoutMs: number, reconnectCapMs: number) {
  return {
    disableOfflineQueue: true,
    pingInterval: Math.max(100, Math.floor(timeoutMs / 3)),
    socket: {
      connectTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      reconnectStrategy: backoff(reconnectCapMs),
    },
  }
}

/**
 * node-redis client options that fail fast while Redis is unreachable: no offline queue (a command
 * while reconnecting fails at once), socket and connect timeouts, reconnects every second at most
 * (forever), and a ping that keeps idle sockets honest.
 */
export function failFastRedisOptions(url: string, timeoutMs = 1000) {
  return { url, ...failFastClientDefaults(timeoutMs, 1000) }
}

/**
 * node-redis `createCluster` options that fail fast: every node client gets the
 * {@link failFastRedisOptions} settings (reconnects at most every `timeoutMs / 2`), and a command
 * follows at most 5 `MOVED`/`ASK` redirections. List several nodes as roots: any one that answers
 * gives the client the whole topology.
 *
 * Pair it with {@link followFailover}: node-redis refreshes its slot map only when a node answers
 * `MOVED`, which a dead master never does.
 */
export function failFastClusterOptions(rootNodes: readonly string[], timeoutMs = 1000) {
  if (rootNodes.length === 0) throw new TypeError("failFastClusterOptions: give at least one root node URL.")
  return {
    rootNodes: rootNodes.map((url) => ({ url })),
    defaults: failFastClientDefaults(timeoutMs, Math.max(50, Math.floor(timeoutMs / 2))),
    maxCommandRedirections: 5,
  }
}

/**
 * The parts of a node-redis cluster client `followFailover` uses: its `node-error` event, its masters,
 * and the slot map's `rediscover` (node-redis' own refresh, which it otherwise runs only on `MOVED`).
 */
export interface FailoverCluster<Client = unknown> {
  on(event: "node-error", listener: (error: Error, node: { host: string; port: number }) => void): unknown
  off(event: "node-error", listener: (error: Error, node: { host: string; port: number }) => void): unknown
  readonly masters: readonly { readonly client?: Client }[]
  readonly _slots: { rediscover(startWith: Client): Promise<void> }
}

/** Options of `followFailover`. */
export interface FollowFailoverOptions {
  /** At most one topology refresh per this many milliseconds (a trailing one follows the last error). Default 250. */
  minIntervalMs?: number
}

const isReady = (client: unknown) => (client as { isReady?: boolean } | undefined)?.isReady === true

/**
 * Keeps a node-redis cluster client's slot map current through a failover: whenever a node's
 * connection fails (`node-error`), the client asks a live master for the topology again, at most once
 * per `minIntervalMs`. While the dead master's replica is not yet promoted, commands for its slots
 * fail at once (`ClientOfflineError`, no offline queue); a refresh after the promotion moves those slots
 * to the new master and drops the dead node, with no restart of the app. (node-redis alone keeps
 * sending those slots to the dead node until the process restarts: redis/node-redis#2806.)
 *
 * Call it once, before or after `connect()`; it returns a function that stops following.
 */
export function followFailover<Client>(cluster: FailoverCluster<Client>, options: FollowFailoverOptions = {}): () => void {
  if (typeof cluster._slots?.rediscover !== "function") {
    throw new TypeError("followFailover: this client has no slot map to refresh (give it a node-redis createCluster client).")
  }
  const minInterval = options.minIntervalMs ?? 250
  let last = 0
  let trailing: NodeJS.Timeout | undefined
  const refresh = () => {
    trailing = undefined
    last = Date.now()
    const start = cluster.masters.find((master) => isReady(master.client))?.client
    if (start === undefined) return // no live master to ask; the next node error tries again
    cluster._slots.rediscover(start).catch(() => undefined) // failures reach the client's own "error" event
  }
  const onNodeError = () => {
    if (trailing) return
    const wait = last + minInterval - Date.now()
    if (wait <= 0) refresh()
    else trailing = setTimeout(refresh, wait).unref()
  }
  cluster.on("node-error", onNodeError)
  return () => {
    cluster.off("node-error", onNodeError)
    clearTimeout(trailing)
  }
}
