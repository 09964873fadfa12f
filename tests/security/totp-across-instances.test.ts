/**
 * Attack classes: TOTP replay and brute force across instances, and a revoked session on another
 * instance. Two app processes (tests/support/multi-app.ts, the scale-out guide's setup:
 * `RedisServerState` on one shared redis-server, sealed-cookie flow store, JWT sessions) with credentials
 * sign-in and a TOTP step. A code used on A is refused on B; wrong codes on A and B add up to one cap;
 * a revocation made on A ends the session on B.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { totpCode } from "../../src/steps/totp.js"
import { users } from "../fixtures/credentials-with-totp.js"
import { type AppProcess, HttpBrowser, startApp } from "../support/app-process.js"
import { type RedisServer, startRedis } from "../support/redis-server.js"

const AUTH_SECRET = "across-instances-secret-0123456789abcdef01"
const ADA_SECRET = users.get("ada")?.totpSecret as string

let redis: RedisServer
let a: AppProcess
let b: AppProcess

beforeAll(async () => {
  redis = await startRedis()
  const env = { AUTH_SECRET, REDIS_URL: redis.url, FLOW_STORE: "cookie", SESSIONS: "jwt", SERVER_STATE: "redis", TOTP: "1", PORT: "0" }
  ;[a, b] = await Promise.all([startApp("tests/support/multi-app.ts", { env }), startApp("tests/support/multi-app.ts", { env })])
}, 30_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await redis?.stop()
})

/** Password on the first instance of `bases`; the next request goes to the next one. */
async function password(bases: string[], username = "ada", pass = "correct horse") {
  const browser = new HttpBrowser(bases)
  const csrfToken = await browser.csrf()
  const res = await browser.send("/auth/callback/credentials", { form: { csrfToken, username, password: pass } })
  const code = (value: string) => browser.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: value } })
  return { browser, res, code }
}

describe("one Redis port shared by two instances", () => {
  it("TOTP replay across instances: a code used on A is refused on B", async () => {
    const code = totpCode(ADA_SECRET)
    const first = await password([a.base])
    expect(first.res.res.status).toBe(200)
    const done = await first.code(code)
    expect(done.location).toBe(a.base)

    const second = await password([b.base])
    const replay = await second.code(code)
    expect(replay.res.status).toBe(200)
    expect(replay.text).toContain("That code was already used")
    expect(second.browser.cookie("authjs.session-token")).toBeUndefined()
  })

  it("TOTP brute force across instances: wrong codes on A and B add up, then the right code is refused", async () => {
    // wrong codes until the cap, alternating instances (the flow moves with its cookie)
    const first = await password([a.base, b.base])
    let last = await first.code("000000")
    while (last.res.status === 200) last = await first.code("000000")
    expect(last.location).toContain("/auth/error?error=AccessDenied")
    expect(new Set(first.browser.served)).toEqual(new Set([0, 1]))

    const fresh = await password([b.base])
    const refused = await fresh.code(totpCode(ADA_SECRET, Date.now() + 30_000))
    expect(refused.location).toBe(`${b.base}/auth/error?error=AccessDenied`)
    expect(b.output()).toContain("auth-error AccessDenied: The totp step refused attempt")
  })

  it("revocation across instances: revokeSessions on A ends the JWT session read on B", async () => {
    const bob = await password([a.base], "bob", "battery staple")
    expect(bob.res.location).toBe(a.base)
    const laptop = new HttpBrowser([b.base])
    for (const [name, value] of bob.browser.jar) laptop.jar.set(name, value)
    const revoke = await fetch(`${a.base}/__revoke/u-bob`, { method: "POST", signal: AbortSignal.timeout(5_000) })
    expect(revoke.status).toBe(200)
    const me = await laptop.send("/me")
    expect(me.text).toBe("null")
    expect(laptop.cookie("authjs.session-token")).toBeUndefined()
  })
})
