/**
 * RedisAdapter against a real redis-server started on a loopback port: the shared conformance suite,
 * then what only Redis does (TTL expiry, key layout, prefixes) and how it fails when the server dies
 * or stalls under the fail-fast client settings.
 */
import { randomUUID } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { ClientOfflineError, SocketClosedUnexpectedlyError, SocketTimeoutError, createClient } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisAdapter } from "../../src/adapters/redis.js"
import { connectClient, startRedis } from "../support/redis-server.js"
import type { RedisServer, TestRedisClient } from "../support/redis-server.js"
import { inDays, newAccount, newAuthenticator, newUser, newVerificationToken, runAdapterConformance } from "./conformance.js"

/** Polls `check` every 25 ms until it returns true or `ms` pass; returns the last answer. */
async function eventually(check: () => Promise<boolean>, ms = 2_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await sleep(25)
  }
  return check()
}

async function closeQuietly(client: TestRedisClient): Promise<void> {
  try {
    client.destroy()
  } catch {
    // already closed by its reconnect strategy
  }
}

let server: RedisServer
let client: TestRedisClient

beforeAll(async () => {
  server = await startRedis()
  client = await connectClient(server.url)
})
afterAll(async () => {
  if (client) await closeQuietly(client)
  await server?.stop()
})

runAdapterConformance("redis", async () => ({
  adapter: RedisAdapter(client, { prefix: `conformance-${randomUUID()}:` }),
  teardown: async () => {},
}))

describe("RedisAdapter on a real redis-server", () => {
  it("a verification token's TTL is its expires: Redis drops it when it lapses", async () => {
    const prefix = `ttl-${randomUUID()}:`
    const adapter = RedisAdapter(client, { prefix })
    const token = newVerificationToken({ expires: new Date(Date.now() + 300) })
    await adapter.createVerificationToken(token)
    const [key] = await client.keys(`${prefix}verification-token:*`)
    expect(key).toBeDefined()
    const pttl = await client.pTTL(key as string)
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(300)
    expect(await eventually(async () => (await client.keys(`${prefix}*`)).length === 0)).toBe(true)
    expect(await adapter.useVerificationToken(token)).toBeNull()
  })

  it("a session's TTL is its expires; updateSession moves the TTL with it", async () => {
    const adapter = RedisAdapter(client, { prefix: `ttl-${randomUUID()}:` })
    const user = await adapter.createUser(newUser())
    const short = { sessionToken: randomUUID(), userId: user.id, expires: new Date(Date.now() + 300) }
    await adapter.createSession(short)
    expect((await adapter.getSessionAndUser(short.sessionToken))?.user.id).toBe(user.id)
    expect(await eventually(async () => (await adapter.getSessionAndUser(short.sessionToken)) === null)).toBe(true)

    const extended = { sessionToken: randomUUID(), userId: user.id, expires: new Date(Date.now() + 300) }
    await adapter.createSession(extended)
    await adapter.updateSession({ sessionToken: extended.sessionToken, expires: inDays(1) })
    await sleep(400)
    expect((await adapter.getSessionAndUser(extended.sessionToken))?.session.expires).toEqual(expect.any(Date))
  })

  it("the per-user session index forgets expired sessions at the next sign-in", async () => {
    const prefix = `index-${randomUUID()}:`
    const adapter = RedisAdapter(client, { prefix })
    const user = await adapter.createUser(newUser())
    await adapter.createSession({ sessionToken: "old", userId: user.id, expires: new Date(Date.now() + 50) })
    await sleep(100)
    await adapter.createSession({ sessionToken: "new", userId: user.id, expires: inDays(1) })
    expect(await client.zRange(`${prefix}user-sessions:${user.id}`, 0, -1)).toEqual(["new"])
    expect(await adapter.deleteUserSessions(user.id)).toBe(1)
  })

  it("writes every key under the prefix, in the documented layout, with dates as ISO strings", async () => {
    const before = new Set(await client.keys("*"))
    const prefix = `layout-${randomUUID()}:`
    const adapter = RedisAdapter(client, { prefix })
    const user = await adapter.createUser(newUser({ email: "fill:1@example.test" }))
    const account = newAccount(user.id, { provider: "git:hub" })
    await adapter.linkAccount(account)
    await adapter.createSession({ sessionToken: "tok", userId: user.id, expires: inDays(1) })
    const vt = newVerificationToken()
    await adapter.createVerificationToken(vt)
    const authenticator = newAuthenticator(user.id)
    await adapter.createAuthenticator(authenticator)

    const added = (await client.keys("*")).filter((k) => !before.has(k)).sort()
    expect(added.every((k) => k.startsWith(prefix))).toBe(true)
    expect(added.map((k) => k.slice(prefix.length)).sort()).toEqual(
      [
        `user:${user.id}`,
        "user-by-email:fill%3A1@example.test",
        `account:git%3Ahub:${account.providerAccountId}`,
        `user-accounts:${user.id}`,
        "session:tok",
        `user-sessions:${user.id}`,
        `verification-token:${vt.identifier}:${vt.token}`,
        `verification-identifier:${vt.token}`,
        `authenticator:${authenticator.credentialID}`,
        `user-authenticators:${user.id}`,
      ].sort(),
    )
    const raw = JSON.parse((await client.get(`${prefix}user:${user.id}`)) ?? "null") as Record<string, unknown>
    expect(raw.emailVerified).toBe(user.emailVerified?.toISOString())

    await adapter.deleteUser(user.id)
    await adapter.useVerificationToken(vt)
    expect(await client.keys(`${prefix}*`)).toEqual([])
  })

  it("key parts are escaped: provider 'a:b' + 'c' and 'a' + 'b:c' are different accounts", async () => {
    const adapter = RedisAdapter(client, { prefix: `escape-${randomUUID()}:` })
    const one = await adapter.createUser(newUser())
    const two = await adapter.createUser(newUser())
    await adapter.linkAccount(newAccount(one.id, { provider: "a:b", providerAccountId: "c" }))
    await adapter.linkAccount(newAccount(two.id, { provider: "a", providerAccountId: "b:c" }))
    expect((await adapter.getUserByAccount({ provider: "a:b", providerAccountId: "c" }))?.id).toBe(one.id)
    expect((await adapter.getUserByAccount({ provider: "a", providerAccountId: "b:c" }))?.id).toBe(two.id)
  })

  it("two prefixes are two separate stores", async () => {
    const one = RedisAdapter(client, { prefix: `one-${randomUUID()}:` })
    const two = RedisAdapter(client, { prefix: `two-${randomUUID()}:` })
    const user = await one.createUser(newUser())
    expect(await two.getUser(user.id)).toBeNull()
    expect(await two.getUserByEmail(user.email)).toBeNull()
    await two.createUser({ ...user, name: "Other" })
    expect((await one.getUser(user.id))?.name).toBe("Fill Murray")
  })

  it("uses the default prefix authchart:", async () => {
    const adapter = RedisAdapter(client)
    const user = await adapter.createUser(newUser())
    expect(await client.exists(`authchart:user:${user.id}`)).toBe(1)
    await adapter.deleteUser(user.id)
    expect(await client.keys("authchart:*")).toEqual([])
  })
})

describe("RedisAdapter when Redis fails (fail-fast client)", () => {
  it("a killed server: calls reject at once instead of hanging", async () => {
    const doomed = await startRedis()
    const faulty = await connectClient(doomed.url)
    try {
      const adapter = RedisAdapter(faulty, { prefix: "fault:" })
      const user = await adapter.createUser(newUser())
      await doomed.kill()
      const started = Date.now()
      // in flight when the socket closed, or issued after the client noticed: either way at once
      const first = await adapter.getUser(user.id).catch((err: unknown) => err)
      expect(first instanceof SocketClosedUnexpectedlyError || first instanceof ClientOfflineError, String(first)).toBe(true)
      await expect(adapter.getUser(user.id)).rejects.toThrow(ClientOfflineError)
      expect(Date.now() - started).toBeLessThan(500)
    } finally {
      await closeQuietly(faulty)
      await doomed.stop()
    }
  })

  it("a stalled server: calls reject within the socket timeout", async () => {
    const stalled = await startRedis()
    const faulty = await connectClient(stalled.url)
    try {
      const adapter = RedisAdapter(faulty, { prefix: "fault:" })
      const user = await adapter.createUser(newUser())
      stalled.freeze()
      const started = Date.now()
      await expect(adapter.getUser(user.id)).rejects.toThrow(SocketTimeoutError)
      expect(Date.now() - started).toBeLessThan(2_500)
      await expect(adapter.getUser(user.id)).rejects.toThrow(ClientOfflineError)
    } finally {
      stalled.thaw()
      await closeQuietly(faulty)
      await stalled.stop()
    }
  })

  it("a stalled server and a client with no socket timeout: the adapter's own bound rejects each call", async () => {
    const stalled = await startRedis()
    const lax = createClient({ url: stalled.url })
    lax.on("error", () => undefined)
    await lax.connect()
    try {
      const adapter = RedisAdapter(lax, { prefix: "fault:", commandTimeout: 200 })
      const user = await adapter.createUser(newUser())
      stalled.freeze()
      await expect(adapter.getUser(user.id)).rejects.toThrow("redis GET took longer than 200 ms")
      await expect(adapter.deleteUserSessions(user.id)).rejects.toThrow("redis ZRANGE took longer than 200 ms")
    } finally {
      stalled.thaw()
      await closeQuietly(lax as unknown as TestRedisClient)
      await stalled.stop()
    }
  })
})
