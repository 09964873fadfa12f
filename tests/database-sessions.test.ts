/**
 * Database sessions and user/account linking, end to end: OIDC sign-in against the real oidc-provider
 * and credentials sign-in, with each adapter backend in `backends.ts` (memory, Redis, and the published
 * Auth.js adapters on PostgreSQL, SQLite and Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "../src/index.js"
import type { Adapter } from "../src/adapters/types.js"
import Credentials from "../src/providers/credentials.js"
import { backends, memoryBackend } from "./support/backends.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies } from "./helpers.js"
import { DEFAULT_ACCOUNTS, type OidcServer, startOidcProvider } from "./support/oidc-provider.js"
import { connectClient, startRedis } from "./support/redis-server.js"
import { RedisAdapter } from "../src/adapters/redis.js"

let idp: OidcServer
beforeAll(async () => {
  const redirect_uris = ["idp", "idp2", "risky"].map((id) => `${ORIGIN}/auth/callback/${id}`)
  const zoe = { sub: "user-zoe", email: "zoe@example.test", name: "Zoe Example", email_verified: true }
  idp = await startOidcProvider({
    clients: [{ client_id: "db-client", client_secret: "db-secret", redirect_uris }],
    accounts: [...DEFAULT_ACCOUNTS, zoe, { sub: "user-yan", email: "yan@example.test", name: "Yan Example", email_verified: true }],
  })
})
afterAll(() => idp?.stop())

const oidc = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  type: "oidc" as const,
  issuer: idp.issuer,
  clientId: "db-client",
  clientSecret: "db-secret",
  ...extra,
})

/** authorize looks the user up in the app's database, as real apps do. */
function credentialsFor(adapter: Adapter) {
  return Credentials({
    authorize: async (c) => (c.password === "pw" ? await adapter.getUserByEmail?.("cred@example.test") : null) ?? null,
  })
}

async function oauthSignIn(client: AuthClient, id: string, account?: string) {
  const csrfToken = await client.csrf()
  const start = await client.send(`/auth/signin/${id}`, { form: { csrfToken, callbackUrl: "/home" } })
  const answer = (await idp.authorize(start.headers.get("location") as string, account ? { account } : {})) as { url: string }
  const url = new URL(answer.url)
  return client.send(`${url.pathname}${url.search}`)
}

async function session(client: AuthClient) {
  return (await (await client.send("/auth/session")).json()) as { user: { name: string; email: string }; expires: string } | null
}

describe.each(backends)("database sessions with the $name adapter", (backend) => {
  let adapter: Adapter
  let teardown: () => Promise<void>
  beforeAll(async () => {
    ;({ adapter, teardown } = await backend.setup())
  })
  afterAll(() => teardown?.())

  function makeClient(extra: Partial<AuthConfig> = {}, events: string[] = []) {
    const log = captureLogger()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: log.logger,
      providers: [oidc("idp"), oidc("idp2"), oidc("risky", { allowDangerousEmailAccountLinking: true }), credentialsFor(adapter)],
      events: {
        createUser: ({ user }) => void events.push(`createUser:${user.email}`),
        linkAccount: ({ account }) => void events.push(`linkAccount:${account.provider}`),
        signIn: ({ isNewUser }) => void events.push(`signIn:${isNewUser}`),
        signOut: ({ session }) => void events.push(`signOut:${session ? "session" : "none"}`),
      },
      ...extra,
    }
    return { client: new AuthClient(config), log, events }
  }

  it("OIDC sign-in creates the user once, links the account, and stores a database session", async () => {
    const { client, events } = makeClient({ pages: { newUser: "/welcome" } })
    const res = await oauthSignIn(client, "idp", "alice@example.test")
    expect(res.headers.get("location")).toBe(`${ORIGIN}/welcome?callbackUrl=${encodeURIComponent(`${ORIGIN}/home`)}`)
    const token = client.jar.get("authjs.session-token") as string
    expect(token).toMatch(/^[0-9a-f-]{36}$/)
    const stored = await adapter.getSessionAndUser?.(token)
    expect(stored?.user.email).toBe("alice@example.test")
    expect(await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: "user-alice" })).toMatchObject({
      email: "alice@example.test",
    })
    expect((await session(client))?.user).toEqual({ name: "Alice Example", email: "alice@example.test", image: expect.any(String) })
    expect(events).toEqual(["createUser:alice@example.test", "linkAccount:idp", "signIn:true"])

    const again = makeClient({}, [])
    await oauthSignIn(again.client, "idp", "alice@example.test")
    expect(again.events).toEqual(["signIn:false"])
    expect(again.client.jar.get("authjs.session-token")).not.toBe(token)
  })

  it("the same email from another provider is OAuthAccountNotLinked; allowDangerousEmailAccountLinking links it without createUser", async () => {
    const first = makeClient()
    await oauthSignIn(first.client, "idp", "bob@example.test")
    const second = makeClient()
    const refused = await oauthSignIn(second.client, "idp2", "bob@example.test")
    expect(refused.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`)
    expect(second.client.jar.get("authjs.session-token")).toBeUndefined()
    const risky = makeClient()
    const linked = await oauthSignIn(risky.client, "risky", "bob@example.test")
    expect(linked.headers.get("location")).toBe(`${ORIGIN}/home`)
    expect(risky.events).toEqual(["linkAccount:risky", "signIn:false"])
  })

  it("a signed-in user gets a new provider linked; an account of another user is refused", async () => {
    const { client, events } = makeClient()
    await oauthSignIn(client, "idp", "alice@example.test")
    const userId = (await adapter.getSessionAndUser?.(client.jar.get("authjs.session-token") as string))?.user.id
    events.length = 0
    await oauthSignIn(client, "idp2", "alice@example.test")
    expect(events).toEqual(["linkAccount:idp2", "signIn:false"])
    expect((await adapter.getUserByAccount?.({ provider: "idp2", providerAccountId: "user-alice" }))?.id).toBe(userId)
    const bobs = makeClient()
    await oauthSignIn(bobs.client, "idp", "bob@example.test")
    const stolen = await oauthSignIn(bobs.client, "idp2", "alice@example.test")
    expect(stolen.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`)
  })

  it("with JWT sessions and an adapter, jwt gets trigger signUp for a new user and signIn after", async () => {
    const triggers: unknown[] = []
    const jwtConfig = {
      session: { strategy: "jwt" as const },
      callbacks: {
        jwt: ({ token, trigger, isNewUser }: { token: Record<string, unknown>; trigger?: string; isNewUser?: boolean }) => (
          trigger && triggers.push([trigger, isNewUser]), token
        ),
      },
    }
    const first = makeClient(jwtConfig as Partial<AuthConfig>).client
    await oauthSignIn(first, "idp2", "yan@example.test")
    await oauthSignIn(makeClient(jwtConfig as Partial<AuthConfig>).client, "idp2", "yan@example.test")
    expect(triggers).toEqual([
      ["signUp", true],
      ["signIn", false],
    ])
    expect(first.jar.get("authjs.session-token")?.split(".")).toHaveLength(5)
  })

  it("credentials sign-in gets a database session too", async () => {
    await adapter.createUser?.({ id: crypto.randomUUID(), name: "Cred User", email: "cred@example.test", emailVerified: null })
    const { client } = makeClient()
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, password: "pw" } })
    expect(res.status).toBe(303)
    expect(client.jar.get("authjs.session-token")).toMatch(/^[0-9a-f-]{36}$/)
    expect((await session(client))?.user.email).toBe("cred@example.test")
  })

  it("reads refresh at most once per updateAge; the expires returned is the one written", async () => {
    const { client } = makeClient({ session: { updateAge: 3600 } })
    await oauthSignIn(client, "idp", "alice@example.test")
    const token = client.jar.get("authjs.session-token") as string
    const quiet = await client.send("/auth/session")
    expect(setCookies(quiet)).toHaveLength(0)
    const eager = makeClient({ session: { updateAge: 0 } }).client
    eager.jar.cookies.set("authjs.session-token", token)
    const refreshed = await eager.send("/auth/session")
    const cookie = setCookies(refreshed).find((c) => c.name === "authjs.session-token")
    const body = (await refreshed.json()) as { expires: string }
    const stored = await adapter.getSessionAndUser?.(token)
    expect(new Date(body.expires).getTime()).toBe(stored?.session.expires.getTime())
    expect(new Date(cookie?.attributes.expires as string).getTime()).toBe(
      Math.floor((stored?.session.expires.getTime() ?? 0) / 1000) * 1000,
    )
  })

  it("an expired session is deleted and its cookie cleared", async () => {
    const { client } = makeClient()
    await oauthSignIn(client, "idp", "alice@example.test")
    const token = client.jar.get("authjs.session-token") as string
    await adapter.updateSession?.({ sessionToken: token, expires: new Date(Date.now() - 1000) })
    const res = await client.send("/auth/session")
    expect(await res.json()).toBeNull()
    expect(setCookies(res)[0]).toMatchObject({ name: "authjs.session-token", value: "" })
    expect(await adapter.getSessionAndUser?.(token)).toBeNull()
  })

  it("sign-out deletes the session", async () => {
    const { client, events } = makeClient()
    await oauthSignIn(client, "idp", "alice@example.test")
    const token = client.jar.get("authjs.session-token") as string
    const csrfToken = await client.csrf()
    await client.send("/auth/signout", { form: { csrfToken } })
    expect(await adapter.getSessionAndUser?.(token)).toBeNull()
    expect(events.at(-1)).toBe("signOut:session")
  })

  // authchart's adapters have deleteUserSessions; the published Auth.js adapters have no such method.
  it.runIf(backend.quirks.deleteUserSessions !== false)("sign-out everywhere is one adapter call", async () => {
    const a = makeClient().client
    const b = makeClient().client
    await oauthSignIn(a, "idp", "alice@example.test")
    await oauthSignIn(b, "idp", "alice@example.test")
    const userId = (await adapter.getSessionAndUser?.(a.jar.get("authjs.session-token") as string))?.user.id as string
    await (adapter as { deleteUserSessions(id: string): Promise<void> }).deleteUserSessions(userId)
    expect(await session(a)).toBeNull()
    expect(await session(b)).toBeNull()
  })

  it("concurrent first sign-ins of the same user create one user and one account", async () => {
    const events: string[] = []
    const clients = Array.from({ length: 5 }, () => makeClient({}, events).client)
    const answers: { client: AuthClient; url: URL }[] = []
    for (const client of clients) {
      const csrfToken = await client.csrf()
      const start = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/home" } })
      const answer = (await idp.authorize(start.headers.get("location") as string, { account: "zoe@example.test" })) as { url: string }
      answers.push({ client, url: new URL(answer.url) })
    }
    const results = await Promise.all(answers.map(({ client, url }) => client.send(`${url.pathname}${url.search}`)))
    expect(results.map((r) => r.status)).toEqual([302, 302, 302, 302, 302])
    expect(events.filter((e) => e.startsWith("createUser"))).toEqual(["createUser:zoe@example.test"])
    const user = await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: "user-zoe" })
    const ids = await Promise.all(
      clients.map(async (c) => (await adapter.getSessionAndUser?.(c.jar.get("authjs.session-token") as string))?.user.id),
    )
    expect(new Set(ids)).toEqual(new Set([user?.id]))
  })

  it.each([
    ["unknown", "00000000-0000-4000-8000-000000000000"],
    ["forged", "'; DROP TABLE sessions; --"],
  ])("an %s session token reads as null and the cookie is cleared", async (_, token) => {
    const { client } = makeClient()
    client.jar.cookies.set("authjs.session-token", token)
    const res = await client.send("/auth/session")
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
    expect(setCookies(res)[0]).toMatchObject({ name: "authjs.session-token", value: "" })
  })

  it("POST /session passes trigger update and the new data to the session callback", async () => {
    const seen: unknown[] = []
    const { client } = makeClient({
      callbacks: { session: ({ session, trigger, newSession }) => (seen.push({ trigger, newSession }), session) },
    })
    await oauthSignIn(client, "idp", "alice@example.test")
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/session", { json: { csrfToken, data: { theme: "dark" } } })
    expect(res.status).toBe(200)
    expect(seen.at(-1)).toEqual({ trigger: "update", newSession: { theme: "dark" } })
  })
})

describe("adapter failures", () => {
  it("Redis unreachable for the Redis adapter: a clear error in bounded time, no session issued, process alive", async () => {
    const server = await startRedis()
    const redis = await connectClient(server.url)
    const log = captureLogger()
    const adapter = RedisAdapter(redis)
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: log.logger,
      providers: [oidc("idp")] as AuthConfig["providers"],
    })
    const csrfToken = await client.csrf()
    const start = await client.send("/auth/signin/idp", { form: { csrfToken } })
    const answer = (await idp.authorize(start.headers.get("location") as string)) as { url: string }
    await server.kill()
    const url = new URL(answer.url)
    const started = Date.now()
    const res = await client.send(`${url.pathname}${url.search}`)
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["AdapterError"])
    client.jar.cookies.set("authjs.session-token", "00000000-0000-4000-8000-000000000000")
    const read = await client.send("/auth/session")
    expect(read.status).toBe(200)
    expect(await read.json()).toBeNull()
    try {
      redis.destroy()
    } catch {
      // already closed by its reconnect strategy
    }
  })

  const broken = (fail: keyof Adapter): Adapter => {
    const base = memoryBackend.make?.() as Adapter
    return {
      ...base,
      [fail]: async () => {
        throw new Error(`db down: ${String(fail)} password=hunter2`)
      },
    }
  }

  it("a throwing adapter during sign-in is AdapterError → error=Configuration, no session, logged with its cause", async () => {
    const log = captureLogger()
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      adapter: broken("createUser"),
      logger: log.logger,
      providers: [oidc("idp")] as AuthConfig["providers"],
    })
    const res = await oauthSignIn(client, "idp", "alice@example.test")
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["AdapterError"])
    expect(log.errors[0]?.message).not.toContain("hunter2")
  })

  it("a throwing getSessionAndUser reads as no session (SessionTokenError), not a 500", async () => {
    const log = captureLogger()
    const adapter = broken("getSessionAndUser")
    const client = new AuthClient({ secret: SECRET, trustHost: true, adapter, logger: log.logger, providers: [credentialsFor(adapter)] })
    client.jar.cookies.set("authjs.session-token", "00000000-0000-4000-8000-000000000000")
    const res = await client.send("/auth/session")
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["SessionTokenError"])
  })
})
