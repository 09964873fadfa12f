/**
 * A real, throwaway Redis Cluster for tests: six redis-server processes on loopback (started by
 * tests/support/redis-server.ts, so the same port retries, fault signals and exit hook apply) in cluster
 * mode, joined by `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes` into three masters
 * with one replica each, ready once every node reports `cluster_state:ok` and every replica has finished
 * its first sync. Each node keeps its config and its sync file in a directory of its own (a shared one
 * let a replica load another node's `dump.rdb`), under a temp directory removed by `stop()`.
 *
 * The node timeout is short (default 1 s) and replicas may always take over
 * (`cluster-replica-validity-factor 0`), so a killed master is replaced within a few seconds;
 * `cluster-require-full-coverage no` keeps the other masters' slots served meanwhile.
 *
 * Start one cluster per test file and share it across the suites in that file (about 2 s to start).
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { promisify } from "node:util"
import { createClient, createCluster } from "redis"
import { failFastClusterOptions } from "../../src/stores/redis.js"
import { type RedisServer, freePort, startRedis } from "./redis-server.js"

const run = promisify(execFile)
const NODES = 6

export interface RedisClusterOptions {
  /** `cluster-node-timeout`: how long a silent master is waited for before its replica takes over. Default 1 000 ms. */
  nodeTimeoutMs?: number
}

export interface ClusterNode extends RedisServer {
  /** `127.0.0.1:<port>` as the cluster names it. */
  address: string
}

export interface RedisClusterHandle {
  nodes: readonly ClusterNode[]
  /** `redis://127.0.0.1:<port>` of every node, to pass as root nodes. */
  urls: readonly string[]
  /** The node that currently serves `key`'s hash slot as master (asked of a live node). */
  masterOf(key: string): Promise<ClusterNode>
  /** The hash slot of `key` (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>
  /**
   * The keys matching `pattern` that a master holds and its replica lacks, once the replica has
   * acknowledged every write the master took (WAIT, up to `timeoutMs`): what a failover would lose.
   * Keys that expire within a minute are left out (their expiry reaches the replica later).
   */
  unreplicated(pattern: string, timeoutMs: number): Promise<string[]>
  /** Resolves once a live node reports `cluster_state:ok` and `slot` served by a live master (polled every 100 ms). */
  waitUntilServed(slot: number, timeoutMs?: number): Promise<ClusterNode>
  /** Stops every node and removes the config directory. */
  stop(): Promise<void>
}

/** One command to one node, on a short-lived connection. */
async function ask(node: RedisServer, args: string[]): Promise<unknown> {
  return (await askAll(node, [args]))[0]
}

/** Several commands to one node, in order, on one short-lived connection. */
async function askAll(node: RedisServer, commands: string[][]): Promise<unknown[]> {
  const client = createClient({ url: node.url, disableOfflineQueue: true, socket: { connectTimeout: 3_000, reconnectStrategy: false } })
  client.on("error", () => undefined)
  try {
    await client.connect()
    const replies: unknown[] = []
    for (const command of commands) replies.push(await client.sendCommand(command))
    return replies
  } finally {
    client.destroy()
  }
}

const text = (reply: unknown) => (typeof reply === "string" ? reply : Buffer.isBuffer(reply) ? reply.toString() : String(reply))

/** `field:value` lines of an INFO-like reply as a record. */
async function fields(node: RedisServer, args: string[]): Promise<Record<string, string>> {
  const lines = text(await ask(node, args)).split(/\r?\n/)
  return Object.fromEntries(lines.filter((l) => l.includes(":")).map((l) => l.split(":", 2) as [string, string]))
}

const clusterInfo = (node: RedisServer) => fields(node, ["CLUSTER", "INFO"])

/** A replica whose initial sync from its master is done (INFO replication). */
const syncedReplica = (replication: Record<string, string>) =>
  replication.role === "slave" && replication.master_link_status === "up" && replication.master_sync_in_progress === "0"

/** A slot range as `node` sees it (CLUSTER SLOTS: [from, to, [host, port, id], …replicas]): its master's and first replica's ports. */
interface Shard {
  from: number
  to: number
  master: number
  replica: number | undefined
}

async function shardsOf(node: RedisServer): Promise<Shard[]> {
  const ranges = (await ask(node, ["CLUSTER", "SLOTS"])) as [number, number, ...[string, number, string][]][]
  return ranges.map(([from, to, master, replica]) => ({ from, to, master: Number(master?.[1]), replica: replica && Number(replica[1]) }))
}

/** The master port of `slot` according to `node`. */
async function masterPortOf(node: RedisServer, slot: number): Promise<number | undefined> {
  return (await shardsOf(node)).find(({ from, to }) => slot >= from && slot <= to)?.master
}

const alive = (node: RedisServer, dead: Set<number>) => !dead.has(node.port)

/**
 * A cluster client made with the documented options. Its type is inferred from this call: node-redis'
 * client types are costly to relate to one another (`ReturnType<typeof createCluster>` alone cost the
 * typecheck 11 s), so the test helpers never compare two of them.
 */
const newCluster = (urls: readonly string[]) => createCluster(failFastClusterOptions(urls))
type ClusterClient = ReturnType<typeof newCluster>

/** A connected cluster client, as an app creates it (docs/scaling-out.md): fail-fast options (the stores given it follow its failovers). */
export type TestClusterClient = ClusterClient & { errors: Error[] }

/** Connects a cluster client to `urls` the documented way; errors go to `errors`. Close with `destroy()`. */
export async function connectCluster(urls: readonly string[]): Promise<TestClusterClient> {
  const errors: Error[] = []
  const cluster = newCluster(urls)
  cluster.on("error", (err: Error) => errors.push(err))
  await cluster.connect()
  return Object.assign(cluster, { errors })
}

/** Every key matching `pattern` on every master (KEYS per node: for tests, never a hot path). */
export async function keysEverywhere(cluster: ClusterClient, pattern: string): Promise<string[]> {
  const perNode = await Promise.all(cluster.masters.map(async (master) => (await cluster.nodeClient(master)).keys(pattern)))
  return perNode.flat().map(String).sort()
}

/** Starts six nodes, creates the cluster (3 masters, 3 replicas) and waits for `cluster_state:ok`. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const nodeTimeout = options.nodeTimeoutMs ?? 1_000
  const dir = await mkdtemp(join(tmpdir(), "authchart-cluster-"))
  const dead = new Set<number>()
  // each node in a directory of its own: a replica's full sync lands in `<dir>/dump.rdb` and is then
  // loaded from there, so replicas sharing a directory could each load another's file (seen: a replica
  // holding a different master's keys, and the writes its own master took before the sync missing)
  const args = async (port: number) => {
    const home = join(dir, String(port))
    await mkdir(home)
    return [
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      "nodes.conf",
      "--cluster-port",
      String(await freePort()),
      "--cluster-node-timeout",
      String(nodeTimeout),
      "--cluster-replica-validity-factor",
      "0",
      "--cluster-require-full-coverage",
      "no",
      // the initial sync starts at once (the default waits 5 s for more replicas) and loads from the socket
      "--repl-diskless-sync-delay",
      "0",
      "--repl-diskless-load",
      "on-empty-db",
      "--dir",
      home,
    ]
  }
  const servers = await Promise.all(Array.from({ length: NODES }, () => startRedis({ args })))
  const nodes: ClusterNode[] = servers.map((server) => ({
    ...server,
    address: `127.0.0.1:${server.port}`,
    kill: async () => {
      dead.add(server.port)
      await server.kill()
    },
    stop: async () => {
      dead.add(server.port)
      await server.stop()
    },
  }))
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await run("redis-cli", ["--cluster", "create", ...nodes.map((n) => n.address), "--cluster-replicas", "1", "--cluster-yes"], {
      timeout: 30_000,
    })
    const live = () => nodes.filter((n) => alive(n, dead))
    const byPort = (port: number | undefined) => nodes.find((n) => n.port === port)

    const waitUntilServed = async (slot: number, timeoutMs = 15_000): Promise<ClusterNode> => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const asked = live()[0] as ClusterNode
        const ok = (await clusterInfo(asked).catch(() => ({}) as Record<string, string>)).cluster_state === "ok"
        const master = ok ? byPort(await masterPortOf(asked, slot).catch(() => undefined)) : undefined
        if (master && alive(master, dead)) return master
        if (Date.now() > deadline) throw new Error(`slot ${slot} not served by a live master within ${timeoutMs} ms`)
        await sleep(100)
      }
    }
    const slotOf = async (key: string) => Number(await ask(live()[0] as ClusterNode, ["CLUSTER", "KEYSLOT", key]))
    // every slot covered, every node agreeing, and every replica done with its first sync (a write made
    // before that reaches the replica only through the sync)
    const deadline = Date.now() + 20_000
    for (;;) {
      const infos = await Promise.all(nodes.map((n) => clusterInfo(n).catch(() => ({}) as Record<string, string>)))
      const replication = await Promise.all(
        nodes.map((n) => fields(n, ["INFO", "replication"]).catch(() => ({}) as Record<string, string>)),
      )
      const ok = infos.every((i) => i.cluster_state === "ok" && i.cluster_known_nodes === String(NODES) && i.cluster_slots_ok === "16384")
      const replicas = replication.filter(syncedReplica).length
      if (ok && replicas === NODES / 2) break
      if (Date.now() > deadline) {
        throw new Error(
          `the cluster did not reach cluster_state:ok with ${NODES / 2} synced replicas: ${JSON.stringify(infos[0])}, ${replicas}`,
        )
      }
      await sleep(50)
    }
    return {
      nodes,
      urls: nodes.map((n) => n.url),
      slotOf,
      waitUntilServed,
      async masterOf(key) {
        const master = byPort(await masterPortOf(live()[0] as ClusterNode, await slotOf(key)))
        if (!master) throw new Error(`no master known for ${key}`)
        return master
      },
      async unreplicated(pattern, timeoutMs) {
        const pairs = new Map((await shardsOf(live()[0] as ClusterNode)).map((shard) => [shard.master, shard.replica]))
        const missing: string[] = []
        for (const [masterPort, replicaPort] of pairs) {
          const [master, replica] = [byPort(masterPort), replicaPort === undefined ? undefined : byPort(replicaPort)]
          if (!master || !replica) throw new Error(`no live replica for the master on :${masterPort}`)
          const [, listed] = await askAll(master, [
            ["WAIT", "1", String(timeoutMs)],
            ["KEYS", pattern],
          ])
          const keys = (listed as unknown[]).map(text)
          const ttls = await askAll(
            master,
            keys.map((key) => ["PTTL", key]),
          )
          const lasting = keys.filter((_, i) => Number(ttls[i]) === -1 || Number(ttls[i]) >= 60_000)
          // a replica answers reads of its master's slots on a READONLY connection
          const held = (await askAll(replica, [["READONLY"], ...lasting.map((key) => ["EXISTS", key])])).slice(1)
          for (const [i, key] of lasting.entries()) {
            if (Number(held[i]) !== 1) missing.push(`${key} (on :${masterPort}, not on its replica :${replicaPort})`)
          }
        }
        return missing
      },
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}
