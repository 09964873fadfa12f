/**
 * Brute force and abuse limits (docs/security.md, "Limits"), in process through `Auth(request, config, { clientIp })`
 * with the default memory port: the password rules per account and per client, the refusal answers
 * (429 with the RateLimit fields, or the sign-in page with error=RateLimited), session reads, the
 * hooks, lifting a lockout, and the switch by NODE_ENV.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { type AuthConfig, type RateLimitedEvent, RateLimited, resetRateLimit } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Credentials, { type CredentialInput } from "../src/providers/credentials.js"
import { accountFieldOf } from "../src/runtime/limits/account-key.js"
import Passkey from "../src/providers/passkey.js"
import { resolveRateLimit } from "../src/runtime/limits/rules.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const PASSWORD = "correct horse"

/** An app with one credentials provider whose `authorize` calls are recorded. */
function app(rateLimit: AuthConfig["rateLimit"] = { enabled: true }) {
  const log = captureLogger()
  const tried: string[] = []
  const events: RateLimitedEvent[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    rateLimit,
    events: { rateLimited: (e) => void events.push(e) },
    providers: [
      Credentials({
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: async (c) => {
          tried.push(String(c.email))
          return c.password === PASSWORD ? { id: String(c.email), email: String(c.email) } : null
        },
      }),
    ],
  }
  return { config, log, tried, events }
}

async function signIn(client: AuthClient, email: string, password: string, clientIp = "203.0.113.7") {
  const csrfToken = await client.csrf()
  return client.send("/auth/callback/credentials", { form: { csrfToken, email, password }, clientIp })
}

const refusedTo = (res: Response) => new URL(res.headers.get("location") ?? "").searchParams.get("error")

afterEach(() => {
  vi.useRealTimers()
})

describe("password sign-in: 5 failures per account per 15 minutes", () => {
  it("the 6th attempt is refused without calling authorize, even with the right password, until the window passes", async () => {
    const { config, tried } = app()
    const client = new AuthClient(config)
    for (let i = 0; i < 5; i++) expect(refusedTo(await signIn(client, "ada@example.test", "wrong"))).toBe("CredentialsSignin")
    expect(tried).toHaveLength(5)

    const sixth = await signIn(client, "ada@example.test", "wrong")
    expect(refusedTo(sixth)).toBe("RateLimited")
    const right = await signIn(client, "Ada@Example.test ", PASSWORD)
    expect(refusedTo(right)).toBe("RateLimited")
    expect(tried).toHaveLength(5)
    expect(client.jar.get("authjs.session-token")).toBeUndefined()

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 15 * 60 * 1000 + 1000 })
    const later = await signIn(client, "ada@example.test", PASSWORD)
    expect(later.headers.get("location")).toBe(ORIGIN)
    expect(client.jar.get("authjs.session-token")).toBeTruthy()
  })

  it("a success resets the count: 4 failures, a success, then 5 more failures are each checked by authorize", async () => {
    const { config, tried } = app()
    const client = new AuthClient(config)
    for (let i = 0; i < 4; i++) await signIn(client, "bo@example.test", "wrong")
    expect((await signIn(client, "bo@example.test", PASSWORD)).headers.get("location")).toBe(ORIGIN)
    for (let i = 0; i < 5; i++) expect(refusedTo(await signIn(client, "bo@example.test", "wrong"))).toBe("CredentialsSignin")
    expect(tried).toHaveLength(10)
  })

  it("the refusal names no account: a locked and an unknown account get the same answer; other accounts are unaffected", async () => {
    const { config } = app({ enabled: true, rules: { passwordAccount: { max: 1 } } })
    const client = new AuthClient(config)
    await signIn(client, "cy@example.test", "wrong")
    const locked = await signIn(client, "cy@example.test", "wrong")
    await signIn(client, "nobody@example.test", "wrong")
    const unknownLocked = await signIn(client, "nobody@example.test", "wrong")
    expect(locked.headers.get("location")).toBe(unknownLocked.headers.get("location"))
    expect(locked.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=RateLimited&retryIn=15`)
    expect((await signIn(client, "dee@example.test", PASSWORD)).headers.get("location")).toBe(ORIGIN)
  })

  it("one log line and one rateLimited event per lockout, with the account hashed", async () => {
    const { config, log, events } = app()
    const client = new AuthClient(config)
    for (let i = 0; i < 8; i++) await signIn(client, "eve@example.test", "wrong")
    const lines = log.errors.filter((e) => e instanceof RateLimited)
    expect(lines).toHaveLength(1)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ rule: "passwordAccount", client: "203.0.113.7", retryAfter: 900 })
    expect(events[0]?.account).toMatch(/^[\w-]{22}$/)
    expect(JSON.stringify([lines[0]?.message, lines[0]?.cause, events])).not.toContain("eve@")
  })

  it("resetRateLimit lifts a lockout at once", async () => {
    const { config } = app()
    const client = new AuthClient(config)
    for (let i = 0; i < 6; i++) await signIn(client, "fay@example.test", "wrong")
    expect(refusedTo(await signIn(client, "fay@example.test", PASSWORD))).toBe("RateLimited")
    await resetRateLimit(config, "FAY@example.test", { client: "203.0.113.7" })
    expect((await signIn(client, "fay@example.test", PASSWORD)).headers.get("location")).toBe(ORIGIN)
  })
})

describe("password sign-in: per client", () => {
  it("one client trying 101 accounts is refused at the 101st; another client meanwhile is not", async () => {
    const { config, tried } = app({ enabled: true, rules: { passwordClient: false } })
    const client = new AuthClient(config)
    for (let i = 1; i <= 100; i++)
      expect(refusedTo(await signIn(client, `user${i}@example.test`, "wrong", "198.51.100.1"))).toBe("CredentialsSignin")
    expect(refusedTo(await signIn(client, "user101@example.test", "wrong", "198.51.100.1"))).toBe("RateLimited")
    // retrying the refused account is refused again (it was not remembered as tried)
    expect(refusedTo(await signIn(client, "user101@example.test", PASSWORD, "198.51.100.1"))).toBe("RateLimited")
    expect(tried).toHaveLength(100)
    const other = new AuthClient(config)
    expect((await signIn(other, "user101@example.test", PASSWORD, "198.51.100.2")).headers.get("location")).toBe(ORIGIN)
  })

  it("one account tried again and again counts once towards the distinct accounts of its client", async () => {
    const { config, tried } = app({ enabled: true, rules: { passwordClient: false, passwordAccounts: { max: 2, window: 3600 } } })
    const client = new AuthClient(config)
    for (let i = 0; i < 4; i++)
      expect(refusedTo(await signIn(client, "same@example.test", "wrong", "198.51.100.9"))).toBe("CredentialsSignin")
    expect((await signIn(client, "other@example.test", PASSWORD, "198.51.100.9")).headers.get("location")).toBe(ORIGIN)
    expect(refusedTo(await signIn(client, "third@example.test", PASSWORD, "198.51.100.9"))).toBe("RateLimited")
    expect(tried).toHaveLength(5)
  })

  it("20 attempts per client per minute; IPv6 clients count per /64", async () => {
    const { config, tried } = app()
    const client = new AuthClient(config)
    for (let i = 0; i < 20; i++)
      await signIn(client, `v6-${i % 4}@example.test`, i % 2 ? "wrong" : PASSWORD, `2001:db8:1:2::${i.toString(16)}`)
    const refused = await signIn(client, "v6-new@example.test", PASSWORD, "2001:db8:1:2:ffff:ffff:ffff:1")
    expect(refusedTo(refused)).toBe("RateLimited")
    expect(tried).toHaveLength(20)
    expect((await signIn(client, "v6-new@example.test", PASSWORD, "2001:db8:1:3::1")).headers.get("location")).toBe(ORIGIN)
  })
})

describe("refusal answers", () => {
  it("API routes: 429 with Retry-After, RateLimit, RateLimit-Policy and { error: RateLimited }; session reads are never limited", async () => {
    const { config } = app({ enabled: true, rules: { client: { max: 2, window: 60 } } })
    const client = new AuthClient(config)
    for (let i = 0; i < 2; i++) expect((await client.send("/auth/providers", { clientIp: "192.0.2.1" })).status).toBe(200)
    const res = await client.send("/auth/providers", { clientIp: "192.0.2.1" })
    expect(res.status).toBe(429)
    expect(res.headers.get("retry-after")).toBe("60")
    expect(res.headers.get("ratelimit-policy")).toBe('"client";q=2;w=60')
    expect(res.headers.get("ratelimit")).toBe('"client";r=0;t=60')
    expect(await res.json()).toEqual({ error: "RateLimited", message: "Too many attempts. Try again in 1 minute." })
    for (let i = 0; i < 5; i++) expect((await client.send("/auth/session", { clientIp: "192.0.2.1" })).status).toBe(200)
  })

  it("page routes: a redirect to the sign-in page, which says how long to wait", async () => {
    const { config } = app({ enabled: true, rules: { passwordAccount: { max: 1, window: 600 } } })
    const client = new AuthClient(config)
    await signIn(client, "gil@example.test", "wrong")
    const res = await signIn(client, "gil@example.test", "wrong")
    expect(res.status).toBe(303)
    expect(res.headers.get("retry-after")).toBe("600")
    expect(res.headers.get("ratelimit-policy")).toBe('"passwordAccount";q=1;w=600')
    const page = await client.send(new URL(res.headers.get("location") ?? "").pathname + new URL(res.headers.get("location") ?? "").search)
    expect(await page.text()).toContain("Too many attempts. Try again in 10 minutes.")
  })
})

describe("OAuth sign-in starts: 30 per client per minute", () => {
  it("the 31st start from one client goes back to the sign-in page; no authorization URL is made for it", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: captureLogger().logger,
      rateLimit: { enabled: true },
      providers: [
        {
          id: "idp",
          name: "IdP",
          type: "oauth",
          clientId: "client",
          clientSecret: "secret",
          authorization: "https://idp.example.test/authorize",
          token: "https://idp.example.test/token",
          userinfo: "https://idp.example.test/userinfo",
        },
      ],
    }
    const client = new AuthClient(config)
    const csrfToken = await client.csrf()
    const start = () => client.send("/auth/signin/idp", { form: { csrfToken }, clientIp: "198.51.100.30" })
    for (let i = 0; i < 30; i++) expect((await start()).headers.get("location")).toMatch(/^https:\/\/idp\.example\.test\/authorize\?/)
    const refused = await start()
    expect(refused.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=RateLimited&retryIn=1`)
    expect(refused.headers.get("ratelimit-policy")).toBe('"oauthClient";q=30;w=60')
  })
})

describe("WebAuthn options: 30 per client per minute", () => {
  it("the 31st options request from one client is a 429 the passkey script can show", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: captureLogger().logger,
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      rateLimit: { enabled: true },
      providers: [Passkey({})],
    }
    const client = new AuthClient(config)
    const options = () => client.send("/auth/webauthn-options/passkey?action=authenticate", { clientIp: "198.51.100.40" })
    for (let i = 0; i < 30; i++) expect((await options()).status).toBe(200)
    const refused = await options()
    expect(refused.status).toBe(429)
    expect(refused.headers.get("ratelimit-policy")).toBe('"webauthnClient";q=30;w=60')
    expect(await refused.json()).toEqual({ error: "RateLimited", message: "Too many attempts. Try again in 1 minute." })
  })
})

describe("configuration", () => {
  it("on by default in production, off in development unless enabled, off with false", () => {
    expect(resolveRateLimit(undefined, { NODE_ENV: "production" })?.rules.get("passwordAccount")).toEqual({ window: 900, max: 5 })
    expect(resolveRateLimit(undefined, { NODE_ENV: "development" })).toBeNull()
    expect(resolveRateLimit({ enabled: true }, { NODE_ENV: "development" })).not.toBeNull()
    expect(resolveRateLimit(false, { NODE_ENV: "production" })).toBeNull()
    expect(resolveRateLimit({ rules: { emailAddress: { max: 10 } } }, { NODE_ENV: "production" })?.rules.get("emailAddress")).toEqual({
      window: 900,
      max: 10,
    })
    expect(() => resolveRateLimit({ enabled: true, rules: { client: { window: 0 } } }, {})).toThrow(TypeError)
    // the account-wide password lock is the app's choice: off unless named
    expect(resolveRateLimit(undefined, { NODE_ENV: "production" })?.rules.has("passwordAccountWide")).toBe(false)
    expect(resolveRateLimit({ rules: { passwordAccountWide: {} } }, { NODE_ENV: "production" })?.rules.get("passwordAccountWide")).toEqual({
      window: 300,
      max: 100,
    })
  })

  it("skip lets a request through a rule; key counts under the app's own client key", async () => {
    const { config, tried } = app({
      enabled: true,
      rules: { passwordAccount: false },
      skip: ({ client }) => client === "10.0.0.5",
      key: ({ headers }) => headers.get("x-tenant") ?? undefined,
    })
    const client = new AuthClient(config)
    for (let i = 0; i < 25; i++) await signIn(client, "hal@example.test", "wrong", "10.0.0.5")
    expect(tried).toHaveLength(25)
    const csrfToken = await client.csrf()
    const send = (ip: string) =>
      client.send("/auth/callback/credentials", {
        form: { csrfToken, email: "hal@example.test", password: "wrong" },
        clientIp: ip,
        headers: { "x-tenant": "acme" },
      })
    for (let i = 0; i < 20; i++) await send(`10.1.0.${i}`)
    expect(refusedTo(await send("10.2.0.1"))).toBe("RateLimited")
  })

  it("the account field: the only non-password field, else the only usual login name, else accountField; ambiguous is a start-up error", () => {
    const field = (credentials: Record<string, CredentialInput>, accountField?: string | false) =>
      accountFieldOf({ credentials, ...(accountField === undefined ? {} : { accountField }) })
    expect(field({ username: {}, password: {} })).toBe("username")
    expect(field({ login: {}, pin: { type: "password" } })).toBe("login")
    expect(field({ email: {}, tenant: {}, password: { type: "password" } })).toBe("email")
    expect(field({})).toBeUndefined()
    expect(field({ login: {}, tenant: {}, password: {} })).toBe("login")
    expect(field({ member: {}, tenant: {}, password: {} }, "member")).toBe("member")
    expect(field({ email: {}, username: {} }, false)).toBeUndefined()
    expect(() => field({ member: {}, tenant: {}, password: {} })).toThrow(/"member", "tenant" could each name the account/)
    expect(() => field({ email: {}, username: {} })).toThrow(TypeError)
    expect(() => field({ login: {}, password: {} }, "email")).toThrow(/accountField "email" is not one of its credentials fields/)
  })

  it("an ambiguous credentials provider answers every request with the configuration error (InvalidProvider, logged)", async () => {
    const log = captureLogger()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [Credentials({ credentials: { member: {}, tenant: {}, password: { type: "password" } }, authorize: () => null })],
    }
    const res = await new AuthClient(config).send("/auth/providers")
    expect(res.status).toBe(500)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toContain("InvalidProvider")
    const named = {
      ...config,
      providers: [
        Credentials({
          credentials: { login: {}, tenant: {}, password: { type: "password" } },
          accountField: "login",
          authorize: () => null,
        }),
      ],
    }
    expect((await new AuthClient(named).send("/auth/providers")).status).toBe(200)
  })

  it("off: no limit at all", async () => {
    const { config, tried } = app(false)
    const client = new AuthClient(config)
    for (let i = 0; i < 8; i++) await signIn(client, "ivy@example.test", "wrong")
    expect(tried).toHaveLength(8)
  })
})
