/**
 * The server-state port (src/runtime/limits/server-state.ts) through its conformance suite, on memory and on a
 * real redis-server; then what only each implementation does: the memory port's bound, and the Redis
 * port's key layout (prefix, Cluster hash tag, TTLs) and its bounded commands against a stalled server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FlowStoreUnavailable } from "../src/errors.js"
import { stateKey } from "../src/runtime/limits/server-state.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { RedisServerState } from "../src/stores/redis.js"
import { runServerStateConformance } from "./server-state-conformance.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "./support/redis-server.js"

runServerStateConformance({
  name: "memory (default)",
  make: async () => ({ state: memoryServerState(), teardown: async () => {} }),
})

runServerStateConformance({
  name: "RedisServerState on a real redis-server",
  async make() {
    const server = await startRedis()
    const client = await connectClient(server.url)
    return {
      state: RedisServerState(client, { prefix: "conformance:" }),
      async teardown() {
        client.destroy()
        await server.stop()
      },
    }
  },
})

describe("memoryServerState: bounded", () => {
  it("when full, expired entries are swept to make room for a new key", async () => {
    let now = 1_000_000
    const state = memoryServerState({ maxEntries: 3, now: () => now })
    expect(await state.claim("short", 10)).toBe(true)
    expect(await state.claim("a", 60_000)).toBe(true)
    expect(await state.claim("b", 60_000)).toBe(true)
    now += 20
    expect(await state.claim("c", 60_000)).toBe(true)
    // "short" expired and was swept, so a, b and c are all still held
    expect(await Promise.all(["a", "b", "c"].map((k) => state.claim(k, 60_000)))).toEqual([false, false, false])
  })

  it("full of live entries: a new key is refused with FlowStoreUnavailable and no claim is forgotten", async () => {
    let now = 1_000_000
    const state = memoryServerState({ maxEntries: 3, now: () => now })
    for (const key of ["a", "b", "c"]) expect(await state.claim(key, 60_000)).toBe(true)
    // a flood of new keys (claims, counts, revocations) is refused, whatever the verb
    for (let k = 0; k < 10; k++) await expect(state.claim(`flood-${k}`, 60_000)).rejects.toBeInstanceOf(FlowStoreUnavailable)
    await expect(state.count(stateKey("attempts", "user-1"), 60_000)).rejects.toBeInstanceOf(FlowStoreUnavailable)
    await expect(state.setNotBefore("user-1", now, 60_000)).rejects.toBeInstanceOf(FlowStoreUnavailable)
    // every single-use claim still holds until it expires
    expect(await Promise.all(["a", "b", "c"].map((k) => state.claim(k, 60_000)))).toEqual([false, false, false])
    // keys already present are still written
    await state.set("a", "kept", 60_000)
    expect(await state.get("a")).toBe("kept")
    now += 60_001
    expect(await state.claim("d", 60_000)).toBe(true)
    expect(await state.claim("a", 60_000)).toBe(true)
  })

  it("the rate limits' keys have their own bound: a flood of them forgets the oldest and refuses no claim", async () => {
    const state = memoryServerState({ maxEntries: 3, now: () => 1_000_000 })
    expect(await state.claim("a", 60_000)).toBe(true)
    // requests from many addresses (per-client counts, distinct-account claims) fill the limits' part only
    for (let k = 0; k < 10; k++) {
      expect(await state.count(stateKey("rl", `client-${k}`, "signIn"), 60_000)).toMatchObject({ count: 1 })
      expect(await state.claim(stateKey("rl", `client-${k}`, "distinct", "acct"), 60_000)).toBe(true)
    }
    // the newest are kept (counted on), the oldest forgotten (a fresh window)
    expect(await state.claim(stateKey("rl", "client-9", "distinct", "acct"), 60_000)).toBe(false)
    expect(await state.count(stateKey("rl", "client-0", "signIn"), 60_000)).toMatchObject({ count: 1 })
    // sign-ins still claim their flows and codes, and the claim made before the flood still holds
    expect(await state.claim("b", 60_000)).toBe(true)
    expect(await state.claim("a", 60_000)).toBe(false)
  })

  it("a record keeps at most maxFields fields: the least recently written go first", async () => {
    const state = memoryServerState({ maxFields: 4 })
    const key = stateKey("sessions", "user-1")
    for (const field of ["a", "b", "c", "d"]) await state.setFields(key, { [field]: field }, 60_000)
    // "a" written again is now the newest, so "b" and "c" make room for "e" and "f"
    await state.setFields(key, { a: "a2" }, 60_000)
    await state.setFields(key, { e: "e", f: "f" }, 60_000)
    expect(await state.getFields(key)).toEqual({ d: "d", a: "a2", e: "e", f: "f" })
  })

  it("stateKey encodes every piece, so none can close the owner tag or add a part; plain pieces stay as they are", () => {
    expect(stateKey("rl", "203.0.113.9", "passwordClient")).toBe("rl:{203.0.113.9}:passwordClient")
    expect(stateKey("rl", "a}:{b", "x:y", 7)).toBe("rl:{a%7D%3A%7Bb}:x%3Ay:7")
    expect(stateKey("rl", "2001:db8::/64", "é")).toBe("rl:{2001%3Adb8%3A%3A%2F64}:%C3%A9")
  })

  it("each config has its own memory port by default", async () => {
    const one = memoryServerState()
    const two = memoryServerState()
    expect(await one.claim("k", 1000)).toBe(true)
    expect(await two.claim("k", 1000)).toBe(true)
  })
})

describe("RedisServerState: keys, TTLs and bounded commands", () => {
  let server: RedisServer
  let client: TestRedisClient
  beforeAll(async () => {
    server = await startRedis()
    client = await connectClient(server.url)
  })
  afterAll(async () => {
    client?.destroy()
    await server?.stop()
  })

  it("keys are prefix + kind:{owner}:parts (a Cluster hash tag per owner), each with its TTL", async () => {
    const state = RedisServerState(client, { prefix: "layout:" })
    await state.claim(stateKey("totp", "user 1", 57_300_123), 90_000)
    await state.count(stateKey("attempts", "user 1", "totp"), 900_000)
    await state.setNotBefore("user 1", 1_700_000_000_000, 3_600_000)
    await state.setFields(stateKey("sessions", "user 1"), { "s1:t": "x" }, 3_600_000)
    await state.lock(stateKey("lock", "user 1", "p"), "me", 15_000)
    await state.setIfLocked(stateKey("lock", "user 1", "p"), "me", stateKey("value", "user 1", "p"), "v", 600_000)
    expect((await client.keys("layout:*")).sort()).toEqual([
      "layout:attempts:{user%201}:totp",
      "layout:lock:{user%201}:p",
      "layout:nbf:{user%201}",
      "layout:sessions:{user%201}",
      "layout:totp:{user%201}:57300123",
      "layout:value:{user%201}:p",
    ])
    const ttl = async (key: string) => client.pTTL(key)
    expect(await ttl("layout:totp:{user%201}:57300123")).toBeGreaterThan(89_000)
    expect(await ttl("layout:attempts:{user%201}:totp")).toBeGreaterThan(899_000)
    expect(await ttl("layout:nbf:{user%201}")).toBeGreaterThan(3_599_000)
    expect(await ttl("layout:sessions:{user%201}")).toBeGreaterThan(3_599_000)
    expect(await ttl("layout:lock:{user%201}:p")).toBeGreaterThan(14_000)
    expect(await ttl("layout:value:{user%201}:p")).toBeGreaterThan(599_000)
  })

  it("a prefix with braces is refused (it would capture the hash tag)", () => {
    expect(() => RedisServerState(client, { prefix: "app:{x}:" })).toThrow(TypeError)
  })

  it("a stalled server: every verb fails with FlowStoreUnavailable within its bound, none hangs", async () => {
    const stalled = await startRedis()
    const other = await connectClient(stalled.url)
    const state = RedisServerState(other, { commandTimeout: 200 })
    stalled.freeze()
    try {
      const verbs = [
        () => state.claim("k", 1000),
        () => state.count("k", 1000),
        () => state.reset("k"),
        () => state.setNotBefore("u", 1, 1000),
        () => state.getNotBefore("u"),
        () => state.setFields("r", { f: "1" }, 1000),
        () => state.getFields("r"),
        () => state.deleteFields("r", ["f"]),
        () => state.get("k"),
        () => state.set("k", "v", 1000),
        () => state.lock("k", "me", 1000),
        () => state.unlock("k", "me"),
        () => state.setIfLocked(stateKey("l", "u"), "me", stateKey("v", "u"), "v", 1000),
      ]
      for (const verb of verbs) await expect(verb()).rejects.toBeInstanceOf(FlowStoreUnavailable)
    } finally {
      stalled.thaw()
      other.destroy()
      await stalled.stop()
    }
  })
})
