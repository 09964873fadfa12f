/**
 * Attack class: a session that outlives its revocation (a stolen or forgotten JWT session; OWASP ASVS
 * V7.4 "session termination"). `revokeSessions(userId, config)` and `POST /signout` with
 * `everywhere=true` set the user's "not before" in the server-state port; every session read compares
 * the token's issue time with it (`isRevoked`, src/runtime/sessions/revocation.ts, called from the JWT and
 * database strategies). Tokens without authchart's extras (Auth.js' own) are judged by `iat`.
 */
import { encode as authjsEncode } from "@auth/core/jwt"
import { afterEach, describe, expect, it, vi } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import type { Adapter } from "../../src/adapters/types.js"
import { type AuthConfig, revokeSessions } from "../../src/index.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { AuthClient } from "../helpers.js"
import { SECRET, SESSION_COOKIE, browser, people, sessionOf, signInAs as signIn } from "./support.js"

const NAME = SESSION_COOKIE

/** Another browser (device) of the same app, signed in as `username`. */
async function device(config: AuthConfig, username: string): Promise<AuthClient> {
  const client = new AuthClient(config)
  await signIn(client, username)
  return client
}

afterEach(() => {
  vi.useRealTimers()
})

describe("revocation of JWT sessions", () => {
  it("sign out everywhere (POST /signout, everywhere=true): the user's other devices lose their session, other users keep theirs", async () => {
    const { config } = browser([people])
    const phone = await device(config, "ada")
    const laptop = await device(config, "ada")
    const bob = await device(config, "bob")
    expect((await sessionOf(laptop))?.user.name).toBe("ada")

    const csrfToken = await phone.csrf()
    const out = await phone.send("/auth/signout", { form: { csrfToken, everywhere: "true" } })
    expect(out.status).toBe(303)
    expect(phone.jar.get(NAME)).toBeUndefined()

    const stolen = laptop.jar.get(NAME) as string
    const read = await laptop.send("/auth/session")
    expect(await read.json()).toBeNull()
    expect(laptop.jar.get(NAME)).toBeUndefined()
    const thief = new AuthClient(config)
    thief.jar.cookies.set(NAME, stolen)
    expect(await sessionOf(thief)).toBeNull()
    expect((await sessionOf(bob))?.user.name).toBe("bob")

    // a sign-in after the revocation is a new session
    const again = await device(config, "ada")
    expect((await sessionOf(again))?.user.name).toBe("ada")
  })

  it("sign out everywhere needs the CSRF token: without it nothing is revoked", async () => {
    const { config } = browser([people])
    const phone = await device(config, "ada")
    const laptop = await device(config, "ada")
    const forged = await phone.send("/auth/signout", { form: { everywhere: "true" } })
    expect(forged.headers.get("location")).toContain("error=MissingCSRF")
    expect((await sessionOf(laptop))?.user.name).toBe("ada")
  })

  it("revokeSessions(userId, config) from app code ends the user's JWT session at its next read", async () => {
    const { config } = browser([people])
    const laptop = await device(config, "ada")
    // later than the sign-in: a session issued in the revocation's own millisecond stands (by design)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1 })
    await revokeSessions("u-ada", config)
    expect(await sessionOf(laptop)).toBeNull()
  })

  it("two instances sharing one port: the other instance refuses within its cache time, and never re-issues a revoked session", async () => {
    const serverState = memoryServerState()
    const a = browser([people], { serverState }).config
    const b = browser([people], { serverState }).config
    const onB = await device(b, "ada")
    expect((await sessionOf(onB))?.user.name).toBe("ada") // B has cached "not revoked" for 5 s
    // later than the session read's re-issue: a session issued in the revocation's own millisecond stands
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1 })
    await revokeSessions("u-ada", a)

    // within B's cache time, an update would re-issue the token: B asks the port and refuses
    const csrfToken = await onB.csrf()
    const update = await onB.send("/auth/session", { json: { csrfToken, data: { theme: "dark" } } })
    expect(await update.json()).toBeNull()
    expect(onB.jar.get(NAME)).toBeUndefined()

    const other = await device(b, "ada")
    const old = other.jar.get(NAME) as string
    // let B's cache of ada's new state expire, then revoke again on A: B sees it after its cache time
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 6_000 })
    expect((await sessionOf(other))?.user.name).toBe("ada")
    await revokeSessions("u-ada", a)
    vi.setSystemTime(Date.now() + 6_000)
    const thief = new AuthClient(b)
    thief.jar.cookies.set(NAME, old)
    expect(await sessionOf(thief)).toBeNull()
  })

  it("an Auth.js token (no authchart extras) still reads, and is revoked by its iat", async () => {
    const { config } = browser([people])
    const token = await authjsEncode({ token: { name: "ada", email: "ada@example.test", sub: "u-ada" }, secret: SECRET, salt: NAME })
    const holder = new AuthClient(config)
    holder.jar.cookies.set(NAME, token)
    expect((await sessionOf(holder))?.user.name).toBe("ada")
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1_000 })
    await revokeSessions("u-ada", config)
    const later = new AuthClient(config)
    later.jar.cookies.set(NAME, token)
    expect(await sessionOf(later)).toBeNull()
  })
})

describe("revocation of database sessions", () => {
  it("an adapter with deleteUserSessions: the user's sessions are deleted", async () => {
    const adapter = MemoryAdapter()
    const { config } = browser([people], { adapter, session: { strategy: "database", allowCredentials: true } })
    const laptop = await device(config, "ada")
    const token = laptop.jar.get(NAME) as string
    await revokeSessions("u-ada", config)
    expect(await adapter.getSessionAndUser(token)).toBeNull()
    expect(await sessionOf(laptop)).toBeNull()
  })

  it("an adapter without it: the same not-before refuses the session, and the session is deleted at its next read", async () => {
    const memory = MemoryAdapter()
    const { deleteUserSessions: _omitted, ...adapter } = memory
    const { config } = browser([people], { adapter: adapter as Adapter, session: { strategy: "database", allowCredentials: true } })
    const laptop = await device(config, "ada")
    const token = laptop.jar.get(NAME) as string
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1 })
    await revokeSessions("u-ada", config)
    expect(await sessionOf(laptop)).toBeNull()
    expect(await memory.getSessionAndUser(token)).toBeNull()
  })
})
