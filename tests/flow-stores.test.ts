/**
 * Both flow stores through the shared conformance suite (tests/flow-store-conformance.ts): the sealed
 * cookie store and `RedisFlowStore` on a real redis-server. Then what only the Redis store does: the
 * cookie is a bare random id, the envelope sits in Redis under a PX TTL and is taken on resume, and
 * email sign-in works with no database at all (the pending link lives in Redis).
 */
import { createHash } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { createClient } from "redis"
import { CompactEncrypt } from "jose"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "../src/index.js"
import Nodemailer from "../src/providers/nodemailer.js"
import { decryptJwt, deriveKey } from "../src/runtime/crypto/sealed.js"
import { cookieFlowStore } from "../src/runtime/engine/store.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { RedisFlowStore, failFastRedisOptions } from "../src/stores/redis.js"
import {
  FLOW_COOKIE,
  NEW_SECRET,
  type Tamper,
  confirmClient,
  confirmFlow,
  resumeConfirm,
  runFlowStoreConformance,
  startConfirm,
} from "./flow-store-conformance.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies, tamperJwe } from "./helpers.js"
import { foreignCookie, redisFlowStoreUnderTest } from "./support/redis-flow-fixture.js"
import { type RedisServer, startRedis } from "./support/redis-server.js"
import { startSmtp } from "./support/smtp.js"

type Client = ReturnType<typeof createClient>

/** A client with the documented fail-fast settings, as an app would create it. */
async function connect(url: string): Promise<Client> {
  const client = createClient(failFastRedisOptions(url))
  client.on("error", () => undefined)
  await client.connect()
  return client
}

runFlowStoreConformance({
  name: "sealed cookie (default)",
  tamperings: ["a JWE segment altered", "sealed with another secret", "not a JWE"],
  async make() {
    const store = cookieFlowStore()
    const tamper: Record<string, Tamper> = {
      "a JWE segment altered": async ({ value }) => {
        return tamperJwe(value)
      },
      "sealed with another secret": () => foreignCookie(store),
      "not a JWE": async () => "not-a-jwe",
    }
    return { store, serverState: memoryServerState(), tamper, teardown: async () => {} }
  },
})

/**
 * The default store with the in-memory server-state port is read, saved and cleared by the engine
 * without a promise (its own verbs, answered at once); an app that replaced a verb, and a flow cookie
 * only jose reads, still take the store's promises.
 */
describe("the default cookie store, answered at once or through its promises", () => {
  it("verbs the app replaced on the store are the ones called, on save, resume and clear", async () => {
    const store = cookieFlowStore()
    const calls = { load: vi.spyOn(store, "load"), save: vi.spyOn(store, "save"), clear: vi.spyOn(store, "clear") }
    const { client } = confirmClient(store, { serverState: memoryServerState() })
    const { csrfToken } = await startConfirm(client)
    expect((await resumeConfirm(client, csrfToken)).headers.get("location")).toBe(`${ORIGIN}/home`)
    expect([calls.save.mock.calls.length, calls.load.mock.calls.length, calls.clear.mock.calls.length]).toEqual([1, 1, 1])
  })

  it("a flow cookie whose header only jose reads (an extra member) resumes through the store's promise, once", async () => {
    const { client } = confirmClient(cookieFlowStore(), { serverState: memoryServerState() })
    const { csrfToken, cookie } = await startConfirm(client)
    const payload = await decryptJwt(cookie, [SECRET], FLOW_COOKIE)
    const { key } = await deriveKey(SECRET, FLOW_COOKIE, "A256CBC-HS512")
    const unusual = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", cty: "JWT" })
      .encrypt(key)
    client.jar.cookies.set(FLOW_COOKIE, unusual)
    const copy = new AuthClient(client.config)
    for (const [name, value] of client.jar.cookies) copy.jar.cookies.set(name, value)
    expect((await resumeConfirm(client, csrfToken)).headers.get("location")).toBe(`${ORIGIN}/home`)
    expect((await resumeConfirm(copy, csrfToken)).headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })
})

runFlowStoreConformance(
  redisFlowStoreUnderTest("RedisFlowStore on a real redis-server", async () => {
    const server = await startRedis()
    const redis = await connect(server.url)
    return {
      redis,
      async teardown() {
        redis.destroy()
        await server.stop()
      },
    }
  }),
)

describe("RedisFlowStore: what lives where", () => {
  let server: RedisServer
  let redis: Client
  beforeAll(async () => {
    server = await startRedis()
    redis = await connect(server.url)
  })
  afterAll(async () => {
    redis?.destroy()
    await server?.stop()
  })

  const keysUnder = async (prefix: string) => (await redis.keys(`${prefix}*`)).sort()

  it("the cookie carries only a 22-character random id (128 bits); the sealed envelope is in Redis with a PX TTL", async () => {
    const prefix = "layout:"
    const { client } = confirmClient(RedisFlowStore(redis, { prefix }))
    const { res, cookie } = await startConfirm(client)
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(Buffer.from(cookie, "base64url")).toHaveLength(16)
    expect(
      setCookies(res)
        .filter((c) => c.name.startsWith(FLOW_COOKIE))
        .map((c) => c.name),
    ).toEqual([FLOW_COOKIE])

    const key = `${prefix}${FLOW_COOKIE}:${cookie}`
    expect(await keysUnder(prefix)).toEqual([key])
    const sealed = (await redis.get(key)) as string
    expect(sealed.split(".")).toHaveLength(5)
    expect(sealed).not.toContain("Carol")
    const pttl = await redis.pTTL(key)
    expect(pttl).toBeGreaterThan(880_000)
    expect(pttl).toBeLessThanOrEqual(900_000)

    const other = confirmClient(RedisFlowStore(redis, { prefix })).client
    expect((await startConfirm(other)).cookie).not.toBe(cookie)
  })

  it("resting again moves the flow to a fresh id (the old key is gone); nothing is left once it ends", async () => {
    const prefix = "lifecycle:"
    const { client } = confirmClient(RedisFlowStore(redis, { prefix }))
    const { csrfToken, cookie: first } = await startConfirm(client)
    expect((await resumeConfirm(client, csrfToken, "000000")).status).toBe(200)
    const second = client.jar.get(FLOW_COOKIE) as string
    expect(second).not.toBe(first)
    expect(await keysUnder(prefix)).toEqual([`${prefix}${FLOW_COOKIE}:${second}`])
    expect((await resumeConfirm(client, csrfToken)).headers.get("location")).toBe(`${ORIGIN}/home`)
    expect(await keysUnder(prefix)).toEqual([])

    // a refused resume (another secret) also leaves nothing behind
    const failed = confirmClient(RedisFlowStore(redis, { prefix }))
    const started = await startConfirm(failed.client)
    const stranger = confirmClient(RedisFlowStore(redis, { prefix }), { secret: NEW_SECRET }).client
    stranger.jar.cookies.set(FLOW_COOKIE, started.cookie)
    for (const [k, v] of failed.client.jar.cookies) if (k !== FLOW_COOKIE) stranger.jar.cookies.set(k, v)
    expect((await resumeConfirm(stranger, await stranger.csrf())).headers.get("location")).toBe(
      `${ORIGIN}/auth/signin?error=FlowStateError`,
    )
    expect(await keysUnder(prefix)).toEqual([])
  })

  it("Redis drops the flow itself when its TTL runs out (real time, 1 s flow)", async () => {
    const prefix = "ttl:"
    const { client, log } = confirmClient(RedisFlowStore(redis, { prefix }), {}, confirmFlow({ ttl: 1 }))
    const { csrfToken, cookie } = await startConfirm(client)
    const key = `${prefix}${FLOW_COOKIE}:${cookie}`
    const pttl = await redis.pTTL(key)
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(1_000)
    const deadline = Date.now() + 1_500
    while ((await redis.exists(key)) === 1 && Date.now() < deadline) await sleep(25)
    expect(await redis.exists(key)).toBe(0)
    const res = await resumeConfirm(client, csrfToken)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(log.errors.map((e) => e.message)).toEqual(["No sign-in is in progress (or it was already used)."])
  })
})

describe("email sign-in without any database: Redis flow store + JWT sessions", () => {
  let server: RedisServer
  let redis: Client
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  const prefix = "nodb:"
  beforeAll(async () => {
    ;[server, smtp] = await Promise.all([startRedis(), startSmtp()])
    redis = await connect(server.url)
  })
  afterAll(async () => {
    redis?.destroy()
    await Promise.all([server?.stop(), smtp?.stop()])
  })

  const config = (): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    logger: captureLogger().logger,
    flowStore: RedisFlowStore(redis, { prefix }),
    providers: [Nodemailer({ server: smtp.url, from: "authchart <auth@example.test>" })],
  })

  it("the link opened in another browser signs in; the pending verification lives in Redis and is used once", async () => {
    const requester = new AuthClient(config())
    const before = smtp.messages.length
    const csrfToken = await requester.csrf()
    const res = await requester.send("/auth/signin/nodemailer", { form: { csrfToken, email: "Carol@Example.test", callbackUrl: "/inbox" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`)
    const message = await smtp.waitForMessage(before + 1)
    const link = new URL(message.links.find((l) => l.startsWith(`${ORIGIN}/auth/callback/nodemailer`)) as string)
    const token = link.searchParams.get("token") as string

    const hash = createHash("sha256").update(`${token}${SECRET}`).digest("hex")
    const tokenKey = `${prefix}token:email:${encodeURIComponent("carol@example.test")}:${hash}`
    expect(await redis.keys(`${prefix}token:*`)).toEqual([tokenKey])
    expect(await redis.get(tokenKey)).not.toContain(token)
    const pttl = await redis.pTTL(tokenKey)
    expect(pttl).toBeGreaterThan(24 * 3600 * 1000 - 60_000)
    expect(pttl).toBeLessThanOrEqual(24 * 3600 * 1000)

    const otherDevice = new AuthClient(config())
    const done = await otherDevice.send(`${link.pathname}${link.search}`)
    expect(done.status).toBe(302)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/inbox`)
    const session = (await (await otherDevice.send("/auth/session")).json()) as { user: { email: string } }
    expect(session.user.email).toBe("carol@example.test")
    expect(otherDevice.jar.get("authjs.session-token")?.split(".")).toHaveLength(5)
    expect(await redis.exists(tokenKey)).toBe(0)

    const again = await new AuthClient(config()).send(`${link.pathname}${link.search}`)
    expect(again.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`)
  })

  it("a link opened with another address does not burn the real one", async () => {
    const requester = new AuthClient(config())
    const before = smtp.messages.length
    const csrfToken = await requester.csrf()
    await requester.send("/auth/signin/nodemailer", { form: { csrfToken, email: "dan@example.test" } })
    const link = new URL((await smtp.waitForMessage(before + 1)).links.find((l) => l.includes("/auth/callback/")) as string)
    const forged = new URL(link)
    forged.searchParams.set("email", "mallory@example.test")
    const refused = await new AuthClient(config()).send(`${forged.pathname}${forged.search}`)
    expect(refused.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`)
    const real = await new AuthClient(config()).send(`${link.pathname}${link.search}`)
    expect(real.status).toBe(302)
    expect(real.headers.get("location")).not.toContain("error=")
  })
})
