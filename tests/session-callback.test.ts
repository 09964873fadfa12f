/**
 * The `session` callback gets Auth.js' arguments for both strategies. Each scenario sends the same
 * session cookie to authchart and to Auth.js itself (`@auth/core`, same adapter, same secret) and
 * compares what the callback received.
 */
import { Auth as AuthJs } from "@auth/core"
import GitHub from "@auth/core/providers/github"
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig, type SessionCallbackParams } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { encode } from "../src/jwt.js"
import { ORIGIN, SECRET } from "./helpers.js"

type Recorded = Record<string, unknown>

/** A config for each library whose `session` callback records its arguments and returns the default. */
function recording(extra: Partial<AuthConfig>) {
  const calls: { authchart: Recorded[]; authjs: Recorded[] } = { authchart: [], authjs: [] }
  const base = { secret: SECRET, trustHost: true, ...extra }
  const recorder = (into: Recorded[]) => (params: SessionCallbackParams) => {
    into.push({ ...params })
    return { user: params.session.user, expires: new Date(Date.now() + 1000).toISOString() }
  }
  // The same Auth.js preset object in both configs.
  const providers = [GitHub({ clientId: "id", clientSecret: "secret" })]
  const authchart: AuthConfig = { ...base, providers, callbacks: { session: recorder(calls.authchart) } }
  const authjs = { ...base, providers, callbacks: { session: recorder(calls.authjs) } }
  return { calls, authchart, authjs }
}

function request(path: string, cookie: string, json?: unknown): Request {
  const headers = new Headers({ cookie })
  if (json === undefined) return new Request(`${ORIGIN}${path}`, { headers })
  headers.set("content-type", "application/json")
  return new Request(`${ORIGIN}${path}`, { method: "POST", headers, body: JSON.stringify(json) })
}

/** A valid CSRF token and its cookie, from authchart (the cookie format is Auth.js'). */
async function csrf(config: AuthConfig): Promise<{ csrfToken: string; cookie: string }> {
  const response = await Auth(new Request(`${ORIGIN}/auth/csrf`), config)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  const cookie = (response.headers.getSetCookie()[0] ?? "").split(";")[0] as string
  return { csrfToken, cookie }
}

describe("session callback, database strategy", () => {
  async function seeded() {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser({ id: "u-1", name: "Dee Bee", email: "dee@example.test", emailVerified: null })
    const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000)
    await adapter.createSession({ sessionToken: "token-1", userId: user.id, expires })
    return { adapter, user }
  }

  it("gets { session, user, newSession } with session.expires a Date, the adapter's session plus user, and no token", async () => {
    const { adapter, user } = await seeded()
    const { calls, authchart, authjs } = recording({ adapter, session: { strategy: "database" } })
    const cookie = "authjs.session-token=token-1"
    expect((await Auth(request("/auth/session", cookie), authchart)).status).toBe(200)
    expect((await AuthJs(request("/auth/session", cookie), authjs as never)).status).toBe(200)

    const [ours] = calls.authchart
    const [theirs] = calls.authjs
    for (const args of [ours, theirs]) {
      expect(Object.keys(args ?? {}).sort()).toEqual(["newSession", "session", "user"])
      expect(args?.token).toBeUndefined()
      expect(args?.newSession).toBeUndefined()
      expect(args?.user).toEqual(user)
      const session = args?.session as Record<string, unknown>
      expect(Object.keys(session).sort()).toEqual(["expires", "sessionToken", "user", "userId"])
      expect(session.expires).toBeInstanceOf(Date)
      expect(session).toMatchObject({ sessionToken: "token-1", userId: "u-1", user })
    }
    // The common Auth.js idiom picks the user's id under the database strategy.
    const { token, user: argUser } = ours as unknown as SessionCallbackParams
    expect((token as SessionCallbackParams["token"] | undefined) ? token.sub : argUser.id).toBe("u-1")
  })

  it("session.expires is the expiry just written when the read refreshed it (Auth.js passes the old one: differs on purpose)", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "u-2", name: "Old", email: "old@example.test", emailVerified: null })
    const stale = new Date(Date.now() + 3600 * 1000) // well past updateAge: the read extends it
    await adapter.createSession({ sessionToken: "token-2", userId: "u-2", expires: stale })
    const { calls, authchart, authjs } = recording({ adapter, session: { strategy: "database" } })
    await Auth(request("/auth/session", "authjs.session-token=token-2"), authchart)
    const written = (await adapter.getSessionAndUser("token-2"))?.session.expires as Date
    expect(written.getTime()).toBeGreaterThan(stale.getTime())
    expect((calls.authchart[0]?.session as { expires: Date }).expires).toEqual(written)
    await adapter.updateSession({ sessionToken: "token-2", expires: stale })
    await AuthJs(request("/auth/session", "authjs.session-token=token-2"), authjs as never)
    expect((calls.authjs[0]?.session as { expires: Date }).expires).toEqual(stale)
  })

  it('an update adds trigger "update" and the posted data as newSession, as in Auth.js', async () => {
    const { adapter } = await seeded()
    const { calls, authchart, authjs } = recording({ adapter, session: { strategy: "database" } })
    const { csrfToken, cookie } = await csrf(authchart)
    const both = `authjs.session-token=token-1; ${cookie}`
    const body = { csrfToken, data: { theme: "dark" } }
    expect((await Auth(request("/auth/session", both, body), authchart)).status).toBe(200)
    expect((await AuthJs(request("/auth/session", both, body), authjs as never)).status).toBe(200)
    for (const args of [calls.authchart[0], calls.authjs[0]]) {
      expect(Object.keys(args ?? {}).sort()).toEqual(["newSession", "session", "trigger", "user"])
      expect(args).toMatchObject({ trigger: "update", newSession: { theme: "dark" } })
      expect((args?.session as { expires: unknown }).expires).toBeInstanceOf(Date)
    }
  })
})

describe("session callback, JWT strategy", () => {
  async function sessionCookie(): Promise<string> {
    const token = await encode({
      token: { sub: "u-9", name: "Jay", email: "jay@example.test" },
      secret: SECRET,
      salt: "authjs.session-token",
    })
    return `authjs.session-token=${token}`
  }

  it("gets exactly { session, token }, session.expires an ISO string", async () => {
    const { calls, authchart, authjs } = recording({})
    const cookie = await sessionCookie()
    await Auth(request("/auth/session", cookie), authchart)
    await AuthJs(request("/auth/session", cookie), authjs as never)
    for (const args of [calls.authchart[0], calls.authjs[0]]) {
      expect(Object.keys(args ?? {}).sort()).toEqual(["session", "token"])
      const session = args?.session as { expires: unknown; user: unknown }
      expect(typeof session.expires).toBe("string")
      expect(new Date(session.expires as string).toISOString()).toBe(session.expires)
      expect(session.user).toEqual({ name: "Jay", email: "jay@example.test" })
      expect(args?.token).toMatchObject({ sub: "u-9", name: "Jay", email: "jay@example.test" })
    }
  })

  it('an update also passes trigger "update" and newSession (Auth.js passes only { session, token }: differs on purpose)', async () => {
    const { calls, authchart, authjs } = recording({})
    const { csrfToken, cookie } = await csrf(authchart)
    const both = `${await sessionCookie()}; ${cookie}`
    const body = { csrfToken, data: { theme: "dark" } }
    expect((await Auth(request("/auth/session", both, body), authchart)).status).toBe(200)
    expect((await AuthJs(request("/auth/session", both, body), authjs as never)).status).toBe(200)
    expect(Object.keys(calls.authjs[0] ?? {}).sort()).toEqual(["session", "token"])
    expect(Object.keys(calls.authchart[0] ?? {}).sort()).toEqual(["newSession", "session", "token", "trigger"])
    expect(calls.authchart[0]).toMatchObject({ trigger: "update", newSession: { theme: "dark" } })
  })
})
