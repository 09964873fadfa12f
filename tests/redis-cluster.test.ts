/**
 * Every Redis-backed part of authchart on a real Redis Cluster (six redis-server processes on loopback,
 * three masters and three replicas, tests/support/redis-cluster.ts), through the node-redis
 * `createCluster` client an app would make (`failFastClusterOptions`): the same
 * conformance suites as on one redis-server (flow store, server-state port, adapter), unchanged. Then
 * what only a cluster can get wrong: keys of one owner in one slot, and operations over a user's keys
 * spread across all three masters (a multi-key command there would be refused with CROSSSLOT). And how
 * the stores adopt a cluster client: they follow its failovers once per client, however many share it,
 * and warn once at start-up about one made without fail-fast options.
 *
 * One cluster for the whole file, started by the first suite that needs it.
 */
import { randomUUID } from "node:crypto"
import { createClient, createCluster } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisAdapter } from "../src/adapters/redis.js"
import { notBeforeKey, stateKey } from "../src/runtime/limits/server-state.js"
import { tokenKeys } from "../src/runtime/sessions/tokens/record.js"
import { RedisFlowStore, RedisServerState, failFastClusterOptions, followFailover } from "../src/stores/redis.js"
import { inDays, newUser, runAdapterConformance } from "./adapters/conformance.js"
import { runFlowStoreConformance } from "./flow-store-conformance.js"
import { runServerStateConformance } from "./server-state-conformance.js"
import { type RedisClusterHandle, type TestClusterClient, connectCluster, startRedisCluster } from "./support/redis-cluster.js"
import { redisFlowStoreUnderTest } from "./support/redis-flow-fixture.js"

let started: Promise<RedisClusterHandle> | undefined
const cluster = () => {
  started ??= startRedisCluster()
  return started
}
afterAll(async () => {
  await (await started)?.stop()
}, 20_000)

/** A cluster client for one suite, closed with it. */
async function client(): Promise<{ redis: TestClusterClient; teardown(): Promise<void> }> {
  const redis = await connectCluster((await cluster()).urls)
  return { redis, teardown: async () => redis.destroy() }
}

runFlowStoreConformance(redisFlowStoreUnderTest("RedisFlowStore on Redis Cluster", client))

runServerStateConformance({
  name: "RedisServerState on Redis Cluster",
  async make() {
    const { redis, teardown } = await client()
    return { state: RedisServerState(redis, { prefix: "conformance:" }), teardown }
  },
})

runAdapterConformance("redis on Redis Cluster", async () => {
  const { redis, teardown } = await client()
  return { adapter: RedisAdapter(redis, { prefix: `conformance-${randomUUID()}:` }), teardown }
})

describe("Redis Cluster: where the keys go", () => {
  let handle: RedisClusterHandle
  let redis: TestClusterClient
  let teardown: () => Promise<void>
  beforeAll(async () => {
    handle = await cluster()
    ;({ redis, teardown } = await client())
  })
  afterAll(async () => teardown?.())

  it("the cluster is three masters with a replica each, and the client knows all three", async () => {
    expect(handle.nodes).toHaveLength(6)
    expect(redis.masters).toHaveLength(3)
    const masters = new Set(await Promise.all(["a", "b", "c", "d", "e", "f", "g", "h"].map(async (k) => (await handle.masterOf(k)).port)))
    expect(masters.size).toBeGreaterThan(1)
  })

  it("every server-state key of one user hashes to one slot (the {owner} tag), whatever the prefix", async () => {
    const prefix = "authchart:state:"
    const user = "user-42"
    const tokens = tokenKeys(user, "github")
    const keys = [
      stateKey("totp", user, 57_300_123),
      stateKey("attempts", user, "totp"),
      notBeforeKey(user),
      stateKey("sessions", user), // the session index (src/runtime/sessions/user-index.ts)
      stateKey("accounts", user), // the account index (src/runtime/sessions/accounts.ts)
      stateKey("unlink", user),
      tokens.record,
      tokens.lock, // setIfLocked writes the record under this lock: one Lua script on two keys of one slot
      tokens.errors,
    ]
    const slots = await Promise.all(keys.map((key) => handle.slotOf(`${prefix}${key}`)))
    expect(new Set(slots).size).toBe(1)
    expect(await handle.slotOf(`${prefix}${stateKey("totp", "user-43", 57_300_123)}`)).not.toBe(slots[0])
  })

  it("a user's sessions spread over every master: signing out everywhere and deleting the user remove each one", async () => {
    const prefix = `spread-${randomUUID()}:`
    const adapter = RedisAdapter(redis, { prefix })
    const user = await adapter.createUser(newUser())
    // four random tokens per master (random tokens alone leave a master empty in about one run of 40)
    const byMaster = new Map<number, string[]>()
    while (byMaster.size < 3 || [...byMaster.values()].some((t) => t.length < 4)) {
      const token = randomUUID()
      const { port } = await handle.masterOf(`${prefix}session:${token}`)
      const mine = byMaster.get(port) ?? []
      if (mine.length < 4) byMaster.set(port, [...mine, token])
    }
    const tokens = [...byMaster.values()].flat()
    for (const sessionToken of tokens) await adapter.createSession({ sessionToken, userId: user.id, expires: inDays(1) })
    const owners = new Set(await Promise.all(tokens.map(async (token) => (await handle.masterOf(`${prefix}session:${token}`)).port)))
    expect(owners.size).toBe(3) // the session keys really live on all three masters

    expect(await adapter.deleteUserSessions(user.id)).toBe(12)
    for (const sessionToken of tokens) expect(await adapter.getSessionAndUser(sessionToken)).toBeNull()

    for (const sessionToken of tokens) await adapter.createSession({ sessionToken, userId: user.id, expires: inDays(1) })
    await adapter.linkAccount({ userId: user.id, type: "oidc", provider: "idp", providerAccountId: randomUUID() })
    await adapter.deleteUser(user.id)
    for (const sessionToken of tokens) expect(await adapter.getSessionAndUser(sessionToken)).toBeNull()
    expect(await adapter.getUser(user.id)).toBeNull()
  })

  it("followFailover refuses a client without a cluster slot map (a plain createClient client)", () => {
    const single = createClient({ url: handle.urls[0] })
    expect(() => followFailover(single as never)).toThrow(TypeError)
  })
})

describe("Redis Cluster: the stores adopt a cluster client", () => {
  let handle: RedisClusterHandle
  beforeAll(async () => {
    handle = await cluster()
  })

  /** The process warnings emitted while `run` runs, by code. */
  async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
    const seen: string[] = []
    const listen = (warning: Error & { code?: string }) => void seen.push(warning.code ?? warning.name)
    process.on("warning", listen)
    try {
      await run()
      // emitWarning delivers on the next tick
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off("warning", listen)
    }
    return seen
  }

  it("the flow store, the port and the adapter sharing one cluster client follow its failovers once, without a followFailover call", async () => {
    const redis = createCluster(failFastClusterOptions(handle.urls))
    redis.on("error", () => undefined)
    try {
      const before = redis.listenerCount("node-error")
      RedisFlowStore(redis)
      RedisServerState(redis)
      RedisAdapter(redis)
      RedisServerState(redis, { prefix: "other:" })
      expect(redis.listenerCount("node-error")).toBe(before + 1)
      // an app's own call changes nothing: the same following, one listener
      const stop = followFailover(redis)
      expect(followFailover(redis)).toBe(stop)
      expect(redis.listenerCount("node-error")).toBe(before + 1)
      await redis.connect()
      expect(await RedisServerState(redis).claim(stateKey("adopt", randomUUID()), 10_000)).toBe(true)
    } finally {
      redis.destroy()
    }
  })

  it("a cluster client made without fail-fast options: one start-up warning naming the fix, however many stores share it", async () => {
    const redis = createCluster({ rootNodes: handle.urls.map((url) => ({ url })) })
    redis.on("error", () => undefined)
    const logged = await warningsDuring(async () => {
      RedisFlowStore(redis)
      RedisServerState(redis)
      await redis.connect()
      RedisAdapter(redis)
    })
    redis.destroy()
    expect(logged).toEqual(["AUTHCHART_REDIS_CLUSTER_NOT_FAIL_FAST"])
    const message: string[] = []
    const again = createCluster({ rootNodes: handle.urls.map((url) => ({ url })) })
    again.on("error", () => undefined)
    const listen = (warning: Error) => void message.push(warning.message)
    process.on("warning", listen)
    try {
      await again.connect()
      RedisFlowStore(again)
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off("warning", listen)
      again.destroy()
    }
    expect(message.join("")).toContain("failFastClusterOptions")
  })

  it("a cluster client made with failFastClusterOptions: no warning", async () => {
    const redis = createCluster(failFastClusterOptions(handle.urls))
    redis.on("error", () => undefined)
    const logged = await warningsDuring(async () => {
      RedisFlowStore(redis)
      await redis.connect()
      RedisServerState(redis)
    })
    redis.destroy()
    expect(logged).toEqual([])
  })
})
