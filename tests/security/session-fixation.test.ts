/**
 * Attack class: session fixation (OWASP ASVS V7.2). An attacker plants a session cookie they know in the
 * victim's browser before the victim signs in (a tossed cookie, a shared computer). At sign-in the
 * session cookie is replaced by a fresh one: the planted value never becomes the victim's session,
 * with JWT sessions (also when the planted token is chunked) and with database sessions (a made-up
 * token, or the attacker's own live session).
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { encode } from "../../src/jwt.js"
import { SECRET, SESSION_COOKIE, browser, people, sessionOf, signInAs as signIn } from "./support.js"

const NAME = SESSION_COOKIE

/** The attacker signs in (as mallory), plants that session cookie in the victim's browser, and the victim signs in as ada. */
async function plantedThenSignedIn(config: Parameters<typeof browser>[1]) {
  const attacker = browser([people], config).client
  await signIn(attacker, "mallory")
  const planted = attacker.jar.get(NAME) as string
  const victim = browser([people], config).client
  victim.jar.cookies.set(NAME, planted)
  await signIn(victim, "ada")
  expect(victim.jar.get(NAME)).not.toBe(planted)
  expect((await sessionOf(victim))?.user.name).toBe("ada")
  return { victim, planted }
}

/** A browser that carries exactly this session cookie (the attacker's copy of a token). */
async function holderOf(config: Parameters<typeof browser>[1], cookies: Record<string, string>) {
  const { client } = browser([people], config)
  for (const [name, value] of Object.entries(cookies)) client.jar.cookies.set(name, value)
  return sessionOf(client)
}

describe("session fixation with JWT sessions", () => {
  const jwt = { session: { strategy: "jwt" as const } }

  it("session fixation: the attacker's own session token planted in the victim's browser is replaced at sign-in", async () => {
    const { planted } = await plantedThenSignedIn(jwt)
    expect((await holderOf(jwt, { [NAME]: planted }))?.user.name).toBe("mallory")
  })

  it("session fixation: planted chunks of the attacker's session are cleared when the victim's unchunked session is set", async () => {
    const token = await encode({ token: { name: "mallory", sub: "u-mallory", padding: "p".repeat(6000) }, secret: SECRET, salt: NAME })
    const victim = browser([people], jwt).client
    victim.jar.cookies.set(`${NAME}.0`, token.slice(0, 3936))
    victim.jar.cookies.set(`${NAME}.1`, token.slice(3936, 7872))
    victim.jar.cookies.set(`${NAME}.2`, token.slice(7872))
    expect((await sessionOf(victim))?.user.name).toBe("mallory") // the planted session is real
    await signIn(victim, "ada")
    expect([...victim.jar.cookies.keys()].filter((n) => n.startsWith(`${NAME}.`))).toEqual([])
    expect((await sessionOf(victim))?.user.name).toBe("ada")
  })
})

describe("session fixation with database sessions", () => {
  function site() {
    const adapter = MemoryAdapter()
    return { adapter, config: { adapter, session: { strategy: "database" as const, allowCredentials: true } } }
  }

  it("session fixation: a made-up token planted before sign-in is not the session after it", async () => {
    const { config } = site()
    const planted = "00000000-0000-4000-8000-000000000000"
    const victim = browser([people], config).client
    victim.jar.cookies.set(NAME, planted)
    await signIn(victim, "ada")
    const issued = victim.jar.get(NAME)
    expect(issued).toMatch(/^[0-9a-f-]{36}$/)
    expect(issued).not.toBe(planted)
    expect((await sessionOf(victim))?.user.name).toBe("ada")
    expect(await holderOf(config, { [NAME]: planted })).toBeNull()
  })

  it("session fixation: the attacker's own live session planted in the victim's browser stays the attacker's", async () => {
    const { config, adapter } = site()
    const { victim, planted } = await plantedThenSignedIn(config)
    const held = await holderOf(config, { [NAME]: planted })
    expect(held?.user.name ?? null).not.toBe("ada")
    expect((await adapter.getSessionAndUser(victim.jar.get(NAME) as string))?.user.name).toBe("ada")
  })
})
