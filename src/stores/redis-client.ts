/**
 * node-redis client options that fail fast, for one Redis (`createClient`) and for Redis Cluster
 * (`createCluster`); and how the stores treat a cluster client they are given: they follow its
 * failovers themselves (`followFailover`, once per client however many stores share it) and warn once
 * at start-up when it was made without fail-fast options. Re-exported by `authchart/stores/redis`.
 *
 * @example One Redis, or a cluster (the same stores take either client):
 * ```ts
 * import { createClient, createCluster } from "redis"
 * import { failFastClusterOptions, failFastRedisOptions } from "authchart/stores/redis"
 * const single = await createClient(failFastRedisOptions("redis://10.0.0.5:6379")).on("error", console.error).connect()
 * const cluster = createCluster(failFastClusterOptions(["redis://10.0.0.1:6379", "redis://10.0.0.2:6379"]))
 * cluster.on("error", console.error)
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
 * The stores follow the cluster's failovers themselves ({@link followFailover}): node-redis refreshes
 * its slot map only when a node answers `MOVED`, which a dead master never does.
 */
export function failFastClusterOptions(rootNodes: readonly string[], timeoutMs = 1000) {
  if (rootNodes.length === 0) throw new TypeError("failFastClusterOptions: give at least one root node URL.")
  return {
    rootNodes: rootNodes.map((url) => ({ url })),
    defaults: failFastClientDefaults(timeoutMs, Math.max(50, Math.floor(timeoutMs / 2))),
    maxCommandRedirections: 5,
  }
}

/** The public parts of a node-redis cluster client `followFailover` uses: its `node-error` event and its masters. */
export interface FailoverCluster<Client = unknown> {
  on(event: "node-error", listener: (error: Error, node: { host: string; port: number }) => void): unknown
  off(event: "node-error", listener: (error: Error, node: { host: string; port: number }) => void): unknown
  readonly masters: readonly { readonly client?: Client }[]
}

/** How often `followFailover` may ask the cluster for its topology again. */
export interface FollowFailoverOptions {
  /** At most one topology refresh per this many milliseconds (a trailing one follows the last error). Default 250. */
  minIntervalMs?: number
}

const isReady = (client: unknown) => typeof client === "object" && client !== null && "isReady" in client && client.isReady === true

/** The clients followed so far, and how to stop following each. */
const followed = new WeakMap<object, () => void>()

/**
 * Keeps a node-redis cluster client's slot map current through a failover: whenever a node's
 * connection fails (`node-error`), the client asks a live master for the topology again, at most once
 * per `minIntervalMs`. While the dead master's replica is not yet promoted, commands for its slots
 * fail at once (`ClientOfflineError`, no offline queue); a refresh after the promotion moves those slots
 * to the new master and drops the dead node, with no restart of the app. (node-redis alone keeps
 * sending those slots to the dead node until the process restarts: redis/node-redis#2806.)
 *
 * `RedisFlowStore`, `RedisServerState` and `RedisAdapter` call it for a cluster client they are given,
 * so an app needs it only for a cluster client it uses without them. It follows a client once, however
 * often it is called; the returned function (the same for every call) stops following.
 */
export function followFailover<Client>(
  cluster: FailoverCluster<Client> & { readonly _slots?: unknown },
  options: FollowFailoverOptions = {},
): () => void {
  const following = followed.get(cluster)
  if (following) return following
  // node-redis refreshes its slot map only on MOVED/ASK and offers no public call to refresh it
  // (redis/node-redis#2806; closing and reconnecting would drop every live connection): its own
  // `_slots.rediscover` is called here, the one place authchart reads a private member of node-redis.
  const slots = cluster._slots
  if (typeof slots !== "object" || slots === null || !("rediscover" in slots) || typeof slots.rediscover !== "function") {
    throw new TypeError("followFailover: this client has no slot map to refresh (give it a node-redis createCluster client).")
  }
  const method = slots.rediscover
  const rediscover = (start: Client): Promise<unknown> => Promise.resolve(Reflect.apply(method, slots, [start]))
  const minInterval = options.minIntervalMs ?? 250
  let last = 0
  let trailing: NodeJS.Timeout | undefined
  const refresh = () => {
    trailing = undefined
    last = Date.now()
    const start = cluster.masters.find((master) => isReady(master.client))?.client
    if (start === undefined) return // no live master to ask; the next node error tries again
    rediscover(start).catch(() => undefined) // failures reach the client's own "error" event
  }
  const onNodeError = () => {
    if (trailing) return
    const wait = last + minInterval - Date.now()
    if (wait <= 0) refresh()
    else trailing = setTimeout(refresh, wait).unref()
  }
  cluster.on("node-error", onNodeError)
  const stop = () => {
    cluster.off("node-error", onNodeError)
    clearTimeout(trailing)
    followed.delete(cluster)
  }
  followed.set(cluster, stop)
  return stop
}

/** A node-redis `createCluster` client, told apart from a single-node client by its public members. */
function isCluster(client: object): client is FailoverCluster & { once(event: "connect", listener: () => void): unknown } {
  return (
    "masters" in client && Array.isArray(client.masters) && "nodeClient" in client && "on" in client && "off" in client && "once" in client
  )
}

/** Fail fast, as `failFastClusterOptions` sets it on every node connection: no offline queue, a socket timeout. */
function failsFast(node: unknown): boolean | undefined {
  if (typeof node !== "object" || node === null || !("options" in node)) return undefined
  const options: unknown = node.options
  if (typeof options !== "object" || options === null) return undefined
  const socket = "socket" in options && typeof options.socket === "object" && options.socket !== null ? options.socket : {}
  return (
    "disableOfflineQueue" in options &&
    options.disableOfflineQueue === true &&
    "socketTimeout" in socket &&
    Number(socket.socketTimeout) > 0
  )
}

const checked = new WeakSet<object>()

/** Warns once per client when its node connections do not fail fast (checked once it has connected to a node). */
function warnUnlessFailFast(cluster: FailoverCluster & { once(event: "connect", listener: () => void): unknown }): void {
  if (checked.has(cluster)) return
  checked.add(cluster)
  const check = () => {
    const node = cluster.masters.find((master) => master.client !== undefined)?.client
    if (failsFast(node) !== false) return
    process.emitWarning(
      "authchart: this Redis Cluster client was created without fail-fast options, so a command for a dead master's slots waits instead of failing at once. Create it with createCluster(failFastClusterOptions(nodes)) from authchart/stores/redis.",
      { code: "AUTHCHART_REDIS_CLUSTER_NOT_FAIL_FAST" },
    )
  }
  if (cluster.masters.some((master) => master.client !== undefined)) check()
  else cluster.once("connect", check)
}

/**
 * What a store does with the client it is given: a node-redis cluster client is followed through
 * failovers (once per client) and warned about once when it does not fail fast; any other client is
 * left as it is.
 */
export function adoptRedisClient(client: object): void {
  if (!isCluster(client)) return
  followFailover(client)
  warnUnlessFailFast(client)
}
