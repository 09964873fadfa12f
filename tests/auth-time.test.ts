/**
 * `authTime`: every completed sign-in records when the user proved who they are, in the JWT (claim
 * `authTime`), in the session JSON, and for database sessions in the server-state port; the `jwt`
 * callback can neither drop nor move it; a session Auth.js wrote (no `authTime`) still reads, as not
 * recent. `lastProofAt` answers it for a request.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig, JWT } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { decode, encode } from "../src/jwt.js"
import Credentials from "../src/providers/credentials.js"
import { resolvedFor } from "../src/runtime/front/resolve.js"
import { isRecent, lastProofAt } from "../src/runtime/factors/recent-auth.js"
import { fromWebRequest, requestContext } from "../src/runtime/http/request.js"
import { AuthClient, ORIGIN, SECRET } from "./helpers.js"

const COOKIE = "authjs.session-token"
const T0 = Date.UTC(2026, 11, 6, 12, 0, 0)

afterEach(() => {
  vi.useRealTimers()
})

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [Credentials({ authorize: (c) => (c.password === "pw" ? { id: "u-1", name: "Ada", email: "ada@example.test" } : null) })],
    ...extra,
  }
}

async function signIn(client: AuthClient): Promise<void> {
  const csrfToken = await client.csrf()
  const response = await client.send("/auth/callback/credentials", { form: { csrfToken, password: "pw", callbackUrl: "/" } })
  expect(response.status).toBe(303)
}

async function sessionOf(client: AuthClient): Promise<Record<string, unknown> | null> {
  return (await (await client.send("/auth/session")).json()) as Record<string, unknown> | null
}

async function proofFor(cfg: AuthConfig, cookie: string): Promise<number | null> {
  const incoming = await fromWebRequest(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }))
  const ctx = requestContext(incoming, resolvedFor(cfg))
  if ("response" in ctx) throw new Error("no context")
  return lastProofAt(ctx)
}

describe("JWT sessions", () => {
  it("a sign-in writes authTime (seconds) into the token and the session JSON; a later re-issue keeps it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 + 400 })
    const cfg = config({ session: { updateAge: 60 } })
    const client = new AuthClient(cfg)
    await signIn(client)
    const token = await decode({ token: client.jar.get(COOKIE) ?? "", secret: SECRET, salt: COOKIE })
    expect(token?.authTime).toBe(T0 / 1000)
    expect((await sessionOf(client))?.authTime).toBe(T0 / 1000)

    // two hours later the read re-issues the token (updateAge): a new iat, the same proof time
    vi.setSystemTime(T0 + 2 * 3600 * 1000)
    const before = client.jar.get(COOKIE)
    const session = await sessionOf(client)
    expect(client.jar.get(COOKIE)).not.toBe(before)
    const reissued = await decode({ token: client.jar.get(COOKIE) ?? "", secret: SECRET, salt: COOKIE })
    expect(reissued?.iat).toBe(T0 / 1000 + 7200)
    expect(reissued?.authTime).toBe(T0 / 1000)
    expect(session?.authTime).toBe(T0 / 1000)
    expect(await proofFor(cfg, `${COOKIE}=${client.jar.get(COOKIE)}`)).toBe(T0 / 1000)
  })

  it("a jwt callback that builds a new token cannot drop authTime, nor move it with a session update", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const cfg = config({
      callbacks: {
        // an app that copies whatever the client sends on update (a common, careless idiom)
        jwt: ({ token, trigger, session }) =>
          trigger === "update" ? { ...token, ...(session as JWT) } : { sub: token.sub, name: token.name, label: "reader" },
      },
    })
    const client = new AuthClient(cfg)
    await signIn(client)
    vi.setSystemTime(T0 + 3600 * 1000)
    expect((await sessionOf(client))?.authTime).toBe(T0 / 1000)
    const csrfToken = await client.csrf()
    const updated = await client.send("/auth/session", { json: { csrfToken, data: { authTime: T0 / 1000 + 3600 } } })
    expect(updated.status).toBe(200)
    const token = await decode({ token: client.jar.get(COOKIE) ?? "", secret: SECRET, salt: COOKIE })
    expect(token?.authTime).toBe(T0 / 1000)
    expect(((await updated.json()) as { authTime?: number }).authTime).toBe(T0 / 1000)
  })

  it("a session token without authTime (as Auth.js writes it) reads without one: no recent proof", async () => {
    const cfg = config()
    const token = await encode({ token: { sub: "u-1", name: "Ada", email: "ada@example.test" }, secret: SECRET, salt: COOKIE })
    const response = await new AuthClient(cfg).send("/auth/session", { headers: { cookie: `${COOKIE}=${token}` } })
    const session = (await response.json()) as Record<string, unknown>
    expect(session.user).toEqual({ name: "Ada", email: "ada@example.test" })
    expect("authTime" in session).toBe(false)
    expect(await proofFor(cfg, `${COOKIE}=${token}`)).toBeNull()
    // nor can the jwt callback invent one for it
    const inventing = config({ callbacks: { jwt: ({ token: t }) => ({ ...t, authTime: Math.floor(Date.now() / 1000) }) } })
    const invented = await new AuthClient(inventing).send("/auth/session", { headers: { cookie: `${COOKIE}=${token}` } })
    expect("authTime" in ((await invented.json()) as object)).toBe(false)
  })

  it("no session, a tampered one: lastProofAt is null", async () => {
    const cfg = config()
    expect(await proofFor(cfg, "")).toBeNull()
    const client = new AuthClient(cfg)
    await signIn(client)
    const token = client.jar.get(COOKIE) ?? ""
    expect(await proofFor(cfg, `${COOKIE}=${token}`)).toEqual(expect.any(Number))
    expect(await proofFor(cfg, `${COOKIE}=${token.slice(0, -4)}AAAA`)).toBeNull()
  })
})

describe("database sessions", () => {
  it("the proof time is kept in the server-state port under the session's public id; the session JSON carries it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 + 250 })
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "u-1", name: "Ada", email: "ada@example.test", emailVerified: null })
    const cfg = config({ adapter, session: { strategy: "database", updateAge: 60, allowCredentials: true } })
    const client = new AuthClient(cfg)
    await signIn(client)
    expect((await sessionOf(client))?.authTime).toBe(T0 / 1000)
    const cookie = `${COOKIE}=${client.jar.get(COOKIE)}`
    expect(await proofFor(cfg, cookie)).toBe(T0 / 1000)

    // a session the adapter has but authchart never noted (made by Auth.js): no authTime, not recent
    await adapter.createSession({ sessionToken: "authjs-made", userId: "u-1", expires: new Date(T0 + 86_400_000) })
    const theirs = (await (
      await new AuthClient(cfg).send("/auth/session", { headers: { cookie: `${COOKIE}=authjs-made` } })
    ).json()) as object
    expect(theirs).toMatchObject({ user: { name: "Ada" } })
    expect("authTime" in theirs).toBe(false)
    expect(await proofFor(cfg, `${COOKIE}=authjs-made`)).toBeNull()

    // signed out: the session and its proof time are gone
    const csrfToken = await client.csrf()
    await client.send("/auth/signout", { form: { csrfToken } })
    expect(await proofFor(cfg, cookie)).toBeNull()
  })
})

it("isRecent: within maxAge seconds of the proof, and never for no proof", () => {
  expect(isRecent(1000, 300, 1_300_000)).toBe(true)
  expect(isRecent(1000, 300, 1_301_000)).toBe(false)
  expect(isRecent(null, 300, 1_000_000)).toBe(false)
  expect(isRecent(undefined, 300, 1_000_000)).toBe(false)
})
