/**
 * Rate limits with real parts: magic-link requests against a real SMTP server (a refused request sends
 * no mail), and the Redis server-state port going down (password attempts refused at once with a clear
 * error, fail closed; the rest let through, fail open; session reads unaffected).
 */
import { createClient } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AuthConfig, RateLimitUnavailable } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import Nodemailer from "../src/providers/nodemailer.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { RedisServerState, failFastRedisOptions } from "../src/stores/redis.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { startRedis } from "./support/redis-server.js"
import { startSmtp } from "./support/smtp.js"

describe("magic-link requests: 3 per address per 15 minutes", () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp?.stop())

  it("the 4th request for one address is refused and exactly 3 mails arrive; another address still gets one", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      logger: captureLogger().logger,
      rateLimit: { enabled: true },
      providers: [Nodemailer({ server: smtp.url, from: "authchart <auth@example.test>" })],
    }
    const client = new AuthClient(config)
    const request = async (email: string) => {
      const csrfToken = await client.csrf()
      return client.send("/auth/signin/nodemailer", { form: { csrfToken, email }, clientIp: "203.0.113.20" })
    }
    for (let i = 0; i < 3; i++) {
      expect((await request("kim@example.test")).headers.get("location")).toContain("/auth/verify-request")
    }
    await smtp.waitForMessage(3)
    const fourth = await request("KIM@example.test")
    expect(fourth.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=RateLimited&retryIn=15`)
    expect((await request("lee@example.test")).headers.get("location")).toContain("/auth/verify-request")
    await smtp.waitForMessage(4)
    expect(smtp.messages.map((m) => m.to[0])).toEqual(["kim@example.test", "kim@example.test", "kim@example.test", "lee@example.test"])
  })
})

describe("Redis down", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>
  let client: ReturnType<typeof createClient>
  beforeAll(async () => {
    redis = await startRedis()
    client = createClient(failFastRedisOptions(redis.url))
    client.on("error", () => {})
    await client.connect()
  })
  afterAll(async () => {
    await client?.close().catch(() => {})
    await redis?.stop()
  })

  it("password attempts are refused at once with a clear error; other routes and session reads are served", async () => {
    const log = captureLogger()
    let authorized = 0
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      serverState: RedisServerState(client),
      rateLimit: { enabled: true },
      providers: [Credentials({ credentials: { email: {} }, authorize: async () => (authorized++, { id: "1", email: "a@example.test" }) })],
    }
    const signedIn = new AuthClient(config)
    const first = await signedIn.send("/auth/callback/credentials", {
      form: { csrfToken: await signedIn.csrf(), email: "a@example.test" },
      clientIp: "192.0.2.9",
    })
    expect(first.headers.get("location")).toBe(ORIGIN)
    expect(authorized).toBe(1)
    const browser = new AuthClient(config)
    const csrfToken = await browser.csrf()
    await redis.kill()

    const res = await browser.send("/auth/callback/credentials", { form: { csrfToken, email: "a@example.test" }, clientIp: "192.0.2.9" })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(authorized).toBe(1)
    const unavailable = () => log.errors.filter((e) => e instanceof RateLimitUnavailable).map((e) => e.message)
    expect(unavailable()).toEqual(["The rate-limit store failed (client, passwordClient, passwordAccount, passwordAccounts); refused."])

    // fail open: the ceiling alone cannot be counted, the request is served (and logged once)
    expect((await browser.send("/auth/providers", { clientIp: "192.0.2.9" })).status).toBe(200)
    expect(unavailable()).toHaveLength(2)
    // session reads are not limited: no count, no limiter error (the revocation check is the port's own)
    const session = await browser.send("/auth/session", { clientIp: "192.0.2.9" })
    expect(session.status).toBe(200)
    expect(await session.json()).toBeNull()
    // a signed-in read stands while the port is down (revocation cannot be checked, logged), not limited
    const signedInRead = await signedIn.send("/auth/session", { clientIp: "192.0.2.9" })
    expect(signedInRead.status).toBe(200)
    expect(await signedInRead.json()).toMatchObject({ user: expect.any(Object) })
    expect(unavailable()).toHaveLength(2)
  })
})
