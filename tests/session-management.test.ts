/**
 * Sessions and accounts the signed-in user can manage (docs/sessions.md, "Sessions and accounts the user can
 * manage"), end to end against a real OpenID provider: two browsers (two cookie jars) of one user,
 * listed with user agent and times, one revoked, the others revoked, last-seen throttled; linking a
 * second provider while signed in (database and JWT strategies); unlinking with the last-sign-in guard.
 * Each scenario runs on the memory adapter with the memory server-state port, and on the published
 * `@auth/drizzle-adapter` (SQLite) with `RedisServerState` on a real redis-server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { Adapter } from "../src/adapters/types.js"
import {
  type AuthConfig,
  type ServerState,
  listAccounts,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  unlinkAccount,
} from "../src/index.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { RedisServerState } from "../src/stores/redis.js"
import express from "express"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { ExpressAuth, revokeOtherSessions as revokeOtherSessionsExpress } from "../src/integration/express.js"
import { people, signInAs } from "./security/support.js"
import { serving } from "./support/demo-person.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies } from "./helpers.js"
import { type Backend, drizzleSqliteBackend, memoryBackend } from "./support/backends.js"
import { type OidcServer, startOidcProvider } from "./support/oidc-provider.js"
import { connectClient, startRedis } from "./support/redis-server.js"

const COOKIE = "authjs.session-token"
const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile/15E148"
const LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"

let idp: OidcServer
beforeAll(async () => {
  const redirect_uris = ["idp", "idp2"].map((id) => `${ORIGIN}/auth/callback/${id}`)
  idp = await startOidcProvider({ clients: [{ client_id: "mgmt-client", client_secret: "mgmt-secret-0123", redirect_uris }] })
})
afterAll(() => idp?.stop())
afterEach(() => {
  vi.useRealTimers()
})

const oidc = (id: string) => ({
  id,
  name: `Provider ${id}`,
  type: "oidc" as const,
  issuer: idp.issuer,
  clientId: "mgmt-client",
  clientSecret: "mgmt-secret-0123",
})

/** A browser with its own cookie jar that sends a fixed User-Agent. */
class Browser extends AuthClient {
  constructor(
    config: AuthConfig,
    readonly userAgent: string,
  ) {
    super(config)
  }
  override send(path: string, options: Parameters<AuthClient["send"]>[1] = {}) {
    return super.send(path, { ...options, headers: { "user-agent": this.userAgent, ...(options.headers ?? {}) } })
  }
}

async function oauthSignIn(browser: AuthClient, id: string, account: string): Promise<Response> {
  const csrfToken = await browser.csrf()
  const start = await browser.send(`/auth/signin/${id}`, { form: { csrfToken } })
  const answer = (await idp.authorize(start.headers.get("location") as string, { account })) as { url: string }
  const url = new URL(answer.url)
  return browser.send(`${url.pathname}${url.search}`)
}

interface Listed {
  id: string
  userAgent: string | null
  createdAt: string | null
  lastSeenAt: string | null
  expires: string
  current?: boolean
}

async function sessionsOf(browser: AuthClient): Promise<Listed[]> {
  const res = await browser.send("/auth/sessions")
  expect(res.status).toBe(200)
  return (await res.json()) as Listed[]
}

async function post(browser: AuthClient, path: string, form: Record<string, string> = {}): Promise<Response> {
  const csrfToken = await browser.csrf()
  return browser.send(path, { form: { csrfToken, ...form } })
}

const signedInAs = async (browser: AuthClient) =>
  ((await (await browser.send("/auth/session")).json()) as { user: { email: string } } | null)?.user.email ?? null

interface Setup {
  name: string
  backend: Backend
  state(): Promise<{ serverState: ServerState; stop(): Promise<void> }>
}

const setups: Setup[] = [
  {
    name: "memory adapter, memory server state",
    backend: memoryBackend,
    state: async () => ({ serverState: memoryServerState(), stop: async () => {} }),
  },
  {
    name: "@auth/drizzle-adapter (SQLite), RedisServerState",
    backend: drizzleSqliteBackend,
    async state() {
      const server = await startRedis()
      const client = await connectClient(server.url)
      return {
        serverState: RedisServerState(client, { prefix: "mgmt:" }),
        async stop() {
          client.destroy()
          await server.stop()
        },
      }
    },
  },
]

describe.each(setups)("session management: $name", ({ backend, state }) => {
  let adapter: Adapter
  let serverState: ServerState
  const stops: (() => Promise<void>)[] = []
  beforeAll(async () => {
    const db = await backend.setup()
    adapter = db.adapter
    const store = await state()
    serverState = store.serverState
    stops.push(db.teardown, store.stop)
  })
  afterAll(async () => {
    for (const stop of stops) await stop()
  })

  function configFor(extra: Partial<AuthConfig> = {}) {
    const log = captureLogger()
    const events: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      serverState,
      logger: log.logger,
      providers: [oidc("idp"), oidc("idp2")],
      events: { unlinkAccount: ({ account }) => void events.push(`unlinkAccount:${account.provider}`) },
      ...extra,
    }
    return { config, log, events }
  }

  async function twoDevices(config: AuthConfig, account = "alice@example.test") {
    const phone = new Browser(config, PHONE)
    const laptop = new Browser(config, LAPTOP)
    await oauthSignIn(phone, "idp", account)
    await oauthSignIn(laptop, "idp", account)
    return { phone, laptop }
  }

  it("two browsers of one user: both listed with user agent, created and last-seen times, the asking one current, no token anywhere", async () => {
    const { config } = configFor()
    const before = Date.now()
    const { phone, laptop } = await twoDevices(config)
    const res = await phone.send("/auth/sessions")
    expect(res.headers.get("cache-control")).toBe("private, no-cache, no-store")
    const text = await res.text()
    for (const token of [phone.jar.get(COOKIE), laptop.jar.get(COOKIE)]) expect(text).not.toContain(token as string)
    const listed = JSON.parse(text) as Listed[]
    expect(listed).toHaveLength(2)
    expect(listed.map((s) => s.userAgent).sort()).toEqual([PHONE, LAPTOP].sort())
    expect(listed.find((s) => s.current)?.userAgent).toBe(PHONE)
    for (const session of listed) {
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(new Date(session.createdAt as string).getTime()).toBeGreaterThanOrEqual(before - 1000)
      expect(new Date(session.lastSeenAt as string).getTime()).toBeGreaterThanOrEqual(new Date(session.createdAt as string).getTime())
      expect(new Date(session.expires).getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000)
    }
    const fromLaptop = await sessionsOf(laptop)
    expect(fromLaptop.find((s) => s.current)?.userAgent).toBe(LAPTOP)
    // the app's own view: listSessions(userId) has the same two, none marked current
    const userId = (await adapter.getSessionAndUser?.(phone.jar.get(COOKIE) as string))?.user.id as string
    const fromApp = await listSessions(userId, config)
    expect(fromApp.map((s) => s.id).sort()).toEqual(listed.map((s) => s.id).sort())
    expect(fromApp.some((s) => s.current)).toBe(false)
  })

  it("revoking one session by its id: that browser's cookie no longer reads a session, the other stays", async () => {
    const { config } = configFor()
    const { phone, laptop } = await twoDevices(config, "bob@example.test")
    const laptopToken = laptop.jar.get(COOKIE) as string
    const laptopId = (await sessionsOf(phone)).find((s) => !s.current)?.id as string
    const res = await post(phone, "/auth/revoke-session", { id: laptopId })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ revoked: true })
    expect(await adapter.getSessionAndUser?.(laptopToken)).toBeNull()
    expect(await signedInAs(laptop)).toBeNull()
    expect(await signedInAs(phone)).toBe("bob@example.test")
    expect((await sessionsOf(phone)).map((s) => s.userAgent)).toEqual([PHONE])
    // again: it is gone
    const again = await post(phone, "/auth/revoke-session", { id: laptopId })
    expect(again.status).toBe(404)
    expect(await again.json()).toMatchObject({ error: "SessionNotFound" })
  })

  it("revoking the asking browser's own session is a sign-out (its cookie cleared)", async () => {
    const { config } = configFor()
    const { phone } = await twoDevices(config)
    const own = (await sessionsOf(phone)).find((s) => s.current)?.id as string
    const res = await post(phone, "/auth/revoke-session", { id: own })
    expect(res.status).toBe(200)
    expect(setCookies(res).find((c) => c.name === COOKIE)?.value).toBe("")
    expect(await signedInAs(phone)).toBeNull()
  })

  it("revoke-other-sessions: every other browser is signed out, this one keeps a new session with its creation time", async () => {
    const { config } = configFor()
    const { phone, laptop } = await twoDevices(config)
    const tablet = new Browser(config, "Tablet/1.0")
    await oauthSignIn(tablet, "idp", "alice@example.test")
    const ownBefore = (await sessionsOf(phone)).find((s) => s.current) as Listed
    const oldToken = phone.jar.get(COOKIE) as string
    const res = await post(phone, "/auth/revoke-other-sessions")
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ revoked: true })
    expect(phone.jar.get(COOKIE)).not.toBe(oldToken)
    expect(await adapter.getSessionAndUser?.(oldToken)).toBeNull()
    expect(await signedInAs(laptop)).toBeNull()
    expect(await signedInAs(tablet)).toBeNull()
    expect(await signedInAs(phone)).toBe("alice@example.test")
    const after = await sessionsOf(phone)
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ current: true, userAgent: PHONE, createdAt: ownBefore.createdAt })
  })

  it("a form post with callbackUrl is answered with a redirect there", async () => {
    const { config } = configFor()
    const { phone } = await twoDevices(config)
    const res = await post(phone, "/auth/revoke-session", { id: "no-such-session", callbackUrl: "/account" })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/account?error=SessionNotFound`)
  })

  it("last seen is written at most once per lastSeenInterval, not on every read", async () => {
    const { config } = configFor({ session: { lastSeenInterval: 600 } })
    const phone = new Browser(config, PHONE)
    await oauthSignIn(phone, "idp", "alice@example.test")
    const first = (await sessionsOf(phone)).find((s) => s.current)?.lastSeenAt as string
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 300_000 })
    await phone.send("/auth/session")
    expect((await sessionsOf(phone)).find((s) => s.current)?.lastSeenAt).toBe(first)
    vi.setSystemTime(Date.now() + 301_000)
    await phone.send("/auth/session")
    const later = (await sessionsOf(phone)).find((s) => s.current)?.lastSeenAt as string
    expect(new Date(later).getTime() - new Date(first).getTime()).toBeGreaterThanOrEqual(600_000)
  })

  it("revokeSession({ sessionToken }) and revokeOtherSessions(request) from app code", async () => {
    const { config } = configFor()
    const { phone, laptop } = await twoDevices(config)
    expect(await revokeSession({ sessionToken: laptop.jar.get(COOKIE) as string }, config)).toBe(true)
    expect(await signedInAs(laptop)).toBeNull()
    const tablet = new Browser(config, "Tablet/1.0")
    await oauthSignIn(tablet, "idp", "alice@example.test")
    const request = new Request(`${ORIGIN}/account/sign-out-others`, { method: "POST", headers: { cookie: phone.jar.header() } })
    const result = await revokeOtherSessions(request, config)
    expect(result.revoked).toBe(true)
    expect(result.setCookie).toHaveLength(1)
    expect(result.setCookie[0]).toMatch(/^authjs\.session-token=[0-9a-f-]{36};/)
    expect(await signedInAs(tablet)).toBeNull()
    const anonymous = await revokeOtherSessions(new Request(`${ORIGIN}/x`, { method: "POST" }), config)
    expect(anonymous).toEqual({ revoked: false, setCookie: [] })
  })

  it("linking a second provider while signed in (database sessions); both listed; unlinking one fires unlinkAccount, the last is refused", async () => {
    const { config, events, log } = configFor()
    const browser = new Browser(config, LAPTOP)
    await oauthSignIn(browser, "idp", "alice@example.test")
    const before = browser.jar.get(COOKIE) as string
    const userId = (await adapter.getSessionAndUser?.(before))?.user.id as string
    const listedBefore = await sessionsOf(browser)
    const linked = await oauthSignIn(browser, "idp2", "alice@example.test")
    expect(linked.status).toBe(302)
    // the sign-in that linked replaced the browser's session: one listed, the one before gone (as in Auth.js)
    expect(browser.jar.get(COOKIE)).not.toBe(before)
    expect(await adapter.getSessionAndUser?.(before)).toBeNull()
    const listedAfter = await sessionsOf(browser)
    const current = (list: Listed[]) => list.filter((s) => s.current).map((s) => s.id)
    expect(listedAfter).toHaveLength(listedBefore.length)
    expect(listedAfter.map((s) => s.id)).not.toContain(current(listedBefore)[0])
    expect(current(listedAfter)).toHaveLength(1)
    expect((await adapter.getUserByAccount?.({ provider: "idp2", providerAccountId: "user-alice" }))?.id).toBe(userId)
    const accounts = (await (await browser.send("/auth/accounts")).json()) as { provider: string; name: string; type: string }[]
    expect(accounts.map(({ provider, name, type }) => ({ provider, name, type }))).toEqual([
      { provider: "idp", name: "Provider idp", type: "oidc" },
      { provider: "idp2", name: "Provider idp2", type: "oidc" },
    ])
    const unlinked = await post(browser, "/auth/unlink-account/idp2")
    expect(unlinked.status).toBe(200)
    expect(await unlinked.json()).toEqual({ unlinked: true })
    expect(await adapter.getUserByAccount?.({ provider: "idp2", providerAccountId: "user-alice" })).toBeNull()
    expect(events).toEqual(["unlinkAccount:idp2"])
    const refused = await post(browser, "/auth/unlink-account/idp")
    expect(refused.status).toBe(409)
    expect(await refused.json()).toMatchObject({ error: "LastSignInMethod" })
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["LastSignInMethod"])
    expect((await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: "user-alice" }))?.id).toBe(userId)
    expect((await listAccounts(userId, config)).map((a) => a.provider)).toEqual(["idp"])
    const missing = await post(browser, "/auth/unlink-account/idp2")
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: "AccountNotFound" })
  })

  it("linking while signed in works with JWT sessions too (an adapter holds the users)", async () => {
    const { config } = configFor({ session: { strategy: "jwt" } })
    const browser = new Browser(config, LAPTOP)
    await oauthSignIn(browser, "idp", "bob@example.test")
    const bob = await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: "user-bob" })
    await oauthSignIn(browser, "idp2", "bob@example.test")
    expect((await adapter.getUserByAccount?.({ provider: "idp2", providerAccountId: "user-bob" }))?.id).toBe(bob?.id)
    const accounts = (await (await browser.send("/auth/accounts")).json()) as { provider: string }[]
    expect(accounts.map((a) => a.provider)).toEqual(["idp", "idp2"])
    // JWT: the list has this browser's session only, and it is current
    const listed = await sessionsOf(browser)
    expect(listed).toEqual([expect.objectContaining({ id: "current", current: true, userAgent: LAPTOP })])
    expect(await listSessions(bob?.id as string, config)).toEqual([])
  })

  it("the guard counts what else signs the user in: the app's hasOtherSignIn lets the last account go", async () => {
    const { config } = configFor({ accounts: { hasOtherSignIn: (user) => user.email === "bob@example.test" } })
    const bob = new Browser(config, LAPTOP)
    await oauthSignIn(bob, "idp2", "bob@example.test")
    const bobId = (await adapter.getSessionAndUser?.(bob.jar.get(COOKIE) as string))?.user.id as string
    await unlinkAccount(bobId, "idp2", config)
    expect(await adapter.getUserByAccount?.({ provider: "idp2", providerAccountId: "user-bob" })).toBeNull()
  })
})

describe("JWT sessions: revoke-other-sessions", () => {
  it("the other browsers' tokens are refused (per-user revocation), this browser gets a re-issued token", async () => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [oidc("idp")], logger: captureLogger().logger }
    const phone = new Browser(config, PHONE)
    const laptop = new Browser(config, LAPTOP)
    await oauthSignIn(phone, "idp", "alice@example.test")
    await oauthSignIn(laptop, "idp", "alice@example.test")
    const before = phone.jar.get(COOKIE)
    const res = await post(phone, "/auth/revoke-other-sessions")
    expect(res.status).toBe(200)
    expect(phone.jar.get(COOKIE)).not.toBe(before)
    expect(await signedInAs(laptop)).toBeNull()
    expect(await signedInAs(phone)).toBe("alice@example.test")
  })
})

describe("not signed in", () => {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    providers: [{ id: "x", name: "x", type: "oidc", issuer: "http://127.0.0.1:1", clientId: "c", clientSecret: "s" }],
  }
  it.each([
    ["GET", "/auth/sessions"],
    ["GET", "/auth/accounts"],
    ["POST", "/auth/revoke-session"],
    ["POST", "/auth/revoke-other-sessions"],
    ["POST", "/auth/unlink-account/x"],
  ])("%s %s answers 401 JSON", async (method, path) => {
    const browser = new AuthClient(config)
    const res = method === "GET" ? await browser.send(path) : await post(browser, path, { id: "anything" })
    expect(res.status).toBe(401)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(await res.json()).toEqual({ error: "Unauthorized", message: "Sign in first." })
  })
})

describe("authchart/express: revokeOtherSessions(req, config, res)", () => {
  it("ends the other sessions and sets this browser's new session cookie on the response", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      session: { strategy: "database", allowCredentials: true },
      providers: [people],
      logger: captureLogger().logger,
    }
    const here = new AuthClient(config)
    const elsewhere = new AuthClient(config)
    await signInAs(here, "ada")
    await signInAs(elsewhere, "ada")
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.post("/account/sign-out-others", async (req, res) => {
      res.status((await revokeOtherSessionsExpress(req, config, res)) ? 204 : 401).end()
    })
    await serving(app, async (origin) => {
      const res = await fetch(`${origin}/account/sign-out-others`, { method: "POST", headers: { cookie: here.jar.header() } })
      expect(res.status).toBe(204)
      const [cookie] = res.headers.getSetCookie()
      expect(cookie).toMatch(/^authjs\.session-token=[0-9a-f-]{36}; Path=\/; Expires=/)
      here.jar.cookies.set(COOKIE, decodeURIComponent((cookie as string).split(";")[0]?.split("=")[1] ?? ""))
      const anonymous = await fetch(`${origin}/account/sign-out-others`, { method: "POST" })
      expect(anonymous.status).toBe(401)
    })
    expect(await signedInAs(elsewhere)).toBeNull()
    expect(await signedInAs(here)).toBe("ada@example.test")
  })
})
