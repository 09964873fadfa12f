/**
 * Step-up: `requireRecentAuth` and the re-authentication flow (`<basePath>/reauth`) through `Auth()` and
 * Express, with real parts (credentials `authorize`, TOTP codes from the factors store, the memory
 * server-state port). A fresh session passes; an old one is sent through the re-authentication and back
 * with a new `authTime` (the same user, the same session id); nobody signed in goes to sign-in. Attacks:
 * another user's password or code, a tampered session, an off-origin callbackUrl, a replayed flow state,
 * and guessing (counted per user).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import express from "express"
import type { AddressInfo } from "node:net"
import { type AuthConfig, requireRecentAuth, stepUpFlow } from "../src/index.js"
import { ExpressAuth, requireRecentAuth as requireRecentAuthExpress } from "../src/integration/express.js"
import { decode } from "../src/jwt.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Credentials from "../src/providers/credentials.js"
import { resolvedFor } from "../src/runtime/front/resolve.js"
import { setActiveTotpSecret } from "../src/runtime/factors/totp-secrets.js"
import { totpCode } from "../src/steps/totp.js"
import { AuthClient, ORIGIN, SECRET, tamperJwe } from "./helpers.js"

const COOKIE = "authjs.session-token"
const T0 = Date.UTC(2026, 11, 6, 12, 0, 0)
const USERS: Record<string, { id: string; name: string; password: string }> = {
  "ada@example.test": { id: "u-ada", name: "Ada", password: "ada-pw" },
  "bob@example.test": { id: "u-bob", name: "Bob", password: "bob-pw" },
}
const BOB_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const ADA_SECRET = "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU"

afterEach(() => {
  vi.useRealTimers()
})

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
        authorize: (c) => {
          const user = USERS[String(c.email)]
          return user && c.password === user.password ? { id: user.id, name: user.name, email: String(c.email) } : null
        },
      }),
    ],
    ...extra,
  }
}

async function signIn(client: AuthClient, email = "ada@example.test"): Promise<void> {
  const csrfToken = await client.csrf()
  const password = USERS[email]?.password ?? ""
  expect((await client.send("/auth/callback/credentials", { form: { csrfToken, email, password, callbackUrl: "/" } })).status).toBe(303)
}

async function check(client: AuthClient, maxAge: number, path = "/account/delete") {
  return requireRecentAuth(new Request(`${ORIGIN}${path}`, { headers: { cookie: client.jar.header() } }), client.config, { maxAge })
}

async function token(client: AuthClient) {
  return decode({ token: client.jar.get(COOKIE) ?? "", secret: SECRET, salt: COOKIE })
}

/** Follows a requireRecentAuth redirect to the re-authentication page; answers the page. */
async function openReauth(client: AuthClient, redirect: string): Promise<Response> {
  const url = new URL(redirect)
  expect(url.origin + url.pathname).toBe(`${ORIGIN}/auth/reauth`)
  const page = await client.send(`${url.pathname}${url.search}`)
  expect(page.status).toBe(200)
  return page
}

async function prove(client: AuthClient, form: Record<string, string>): Promise<Response> {
  const csrfToken = await client.csrf()
  return client.send("/auth/reauth", { form: { csrfToken, ...form } })
}

describe("requireRecentAuth and the re-authentication (Auth())", () => {
  it("a fresh session passes; an old one goes through the password re-authentication and back, with a new authTime", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const client = new AuthClient(config())
    await signIn(client)
    const fresh = await check(client, 300)
    expect(fresh).toMatchObject({ ok: true, authTime: T0 / 1000, session: { user: { name: "Ada" } } })
    const before = await token(client)

    vi.setSystemTime(T0 + 301_000)
    const old = await check(client, 300, "/account/delete?confirm=1")
    expect(old).toMatchObject({ ok: false, reason: "reauth" })
    if (old.ok) return
    expect(new URL(old.redirect).searchParams.get("callbackUrl")).toBe(`${ORIGIN}/account/delete?confirm=1`)
    const page = await openReauth(client, old.redirect)
    const html = await page.text()
    expect(html).toContain("Confirm it&#39;s you")
    expect(html).toContain('name="password"')
    expect(html).toContain(`action="${ORIGIN}/auth/reauth"`)

    const wrong = await prove(client, { method: "password", email: "ada@example.test", password: "nope" })
    expect(wrong.status).toBe(200)
    expect(await wrong.text()).toContain("That password is not right.")

    const right = await prove(client, { method: "password", email: "ada@example.test", password: "ada-pw" })
    expect(right.status).toBe(303)
    expect(right.headers.get("location")).toBe(`${ORIGIN}/account/delete?confirm=1`)
    const after = await token(client)
    expect(after?.authTime).toBe(T0 / 1000 + 301)
    expect(after?.sub).toBe(before?.sub)
    expect(after?.sessionId).toBe(before?.sessionId)
    expect(await check(client, 300)).toMatchObject({ ok: true, authTime: T0 / 1000 + 301 })
  })

  it("nobody signed in: to the sign-in page, back to the request's URL", async () => {
    const result = await check(new AuthClient(config()), 300)
    expect(result).toMatchObject({ ok: false, reason: "signin" })
    if (result.ok) return
    const url = new URL(result.redirect)
    expect(url.pathname).toBe("/auth/signin")
    expect(url.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/account/delete`)
    // and the re-authentication page itself sends a signed-out browser to sign in
    const page = await new AuthClient(config()).send("/auth/reauth?callbackUrl=%2Fsettings")
    expect(page.status).toBe(302)
    expect(page.headers.get("location")).toBe(`${ORIGIN}/auth/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/settings`)}`)
  })

  it("with a TOTP secret kept by the factors store: a code re-authenticates; a code is taken once", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const cfg = config()
    await setActiveTotpSecret(resolvedFor(cfg), "u-ada", ADA_SECRET)
    const client = new AuthClient(cfg)
    await signIn(client)
    vi.setSystemTime(T0 + 3600_000)
    const page = await client.send("/auth/reauth?callbackUrl=%2Fsettings")
    const html = await page.text()
    expect(html).toContain('name="method"')
    expect(html).toContain('<option value="totp">')
    const code = totpCode(ADA_SECRET, Date.now())
    const done = await prove(client, { method: "totp", code })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/settings`)
    expect((await token(client))?.authTime).toBe(T0 / 1000 + 3600)

    // the same code again, in a new run: refused as used
    await client.send("/auth/reauth?callbackUrl=%2Fsettings")
    const again = await prove(client, { method: "totp", code })
    expect(again.status).toBe(200)
    expect(await again.text()).toContain("already used")
  })

  it("stepUpFlow({ totpSecretFor }) in config.flows replaces the built-in: the app's own secret", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const client = new AuthClient(config({ flows: [stepUpFlow({ totpSecretFor: (user) => (user.id === "u-ada" ? ADA_SECRET : null) })] }))
    await signIn(client)
    await client.send("/auth/reauth")
    const done = await prove(client, { method: "totp", code: totpCode(ADA_SECRET, Date.now()) })
    expect(done.status).toBe(303)
    // no callbackUrl named: the one the sign-in left in its cookie ("/")
    expect(done.headers.get("location")).toBe(`${ORIGIN}/`)
  })
})

it("database sessions: the re-authentication notes the new proof for the same session token", async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0 })
  const adapter = MemoryAdapter()
  await adapter.createUser({ id: "u-ada", name: "Ada", email: "ada@example.test", emailVerified: null })
  const client = new AuthClient(config({ adapter, session: { strategy: "database", allowCredentials: true } }))
  await signIn(client)
  const sessionToken = client.jar.get(COOKIE)
  vi.setSystemTime(T0 + 3600_000)
  const old = await check(client, 300)
  expect(old).toMatchObject({ ok: false, reason: "reauth" })
  await client.send("/auth/reauth?callbackUrl=%2Fsettings")
  const done = await prove(client, { method: "password", email: "ada@example.test", password: "ada-pw" })
  expect(done.headers.get("location")).toBe(`${ORIGIN}/settings`)
  expect(client.jar.get(COOKIE)).toBe(sessionToken)
  expect(await check(client, 300)).toMatchObject({ ok: true, authTime: T0 / 1000 + 3600 })
  expect(((await (await client.send("/auth/session")).json()) as { authTime?: number }).authTime).toBe(T0 / 1000 + 3600)
})

it("the page and its messages in the request's language (Accept-Language: de)", async () => {
  const client = new AuthClient(config())
  await signIn(client)
  const de = { "accept-language": "de-DE,de;q=0.9" }
  const page = await (await client.send("/auth/reauth", { headers: de })).text()
  expect(page).toContain("Bestätigen Sie, dass Sie es sind")
  expect(page).not.toContain("Confirm it")
  const csrfToken = await client.csrf()
  const wrong = await client.send("/auth/reauth", {
    headers: de,
    form: { csrfToken, method: "password", email: "ada@example.test", password: "nope" },
  })
  expect(await wrong.text()).toContain("Dieses Passwort ist nicht richtig.")
})

describe("attacks", () => {
  it("another user's right password, or their TOTP code, does not refresh my authTime", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const cfg = config()
    await setActiveTotpSecret(resolvedFor(cfg), "u-ada", ADA_SECRET)
    await setActiveTotpSecret(resolvedFor(cfg), "u-bob", BOB_SECRET)
    const client = new AuthClient(cfg)
    await signIn(client)
    vi.setSystemTime(T0 + 3600_000)
    await client.send("/auth/reauth?callbackUrl=%2Fsettings")
    const bobs = await prove(client, { method: "password", email: "bob@example.test", password: "bob-pw" })
    expect(bobs.status).toBe(200)
    expect(await bobs.text()).toContain("That password is not right.")
    const bobsCode = await prove(client, { method: "totp", code: totpCode(BOB_SECRET, Date.now()) })
    expect(bobsCode.status).toBe(200)
    expect((await token(client))?.authTime).toBe(T0 / 1000)
    expect(await check(client, 300)).toMatchObject({ ok: false, reason: "reauth" })
  })

  it("a tampered session cannot step up, nor can another user's session finish my run", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 })
    const cfg = config()
    const ada = new AuthClient(cfg)
    await signIn(ada)
    vi.setSystemTime(T0 + 3600_000)
    await ada.send("/auth/reauth")
    // the session cookie tampered with: nobody is signed in, the answer is refused
    const own = ada.jar.get(COOKIE) ?? ""
    ada.jar.cookies.set(COOKIE, tamperJwe(own))
    const tampered = await prove(ada, { method: "password", email: "ada@example.test", password: "ada-pw" })
    expect(tampered.status).toBe(303)
    expect(tampered.headers.get("location")).toContain("error=AccessDenied")
    expect(await check(ada, 300)).toMatchObject({ ok: false, reason: "signin" })

    // Bob's session with Ada's resting run: refused (the run is Ada's), Bob's authTime unchanged
    const bob = new AuthClient(cfg)
    await signIn(bob, "bob@example.test")
    const bobSession = bob.jar.get(COOKIE) ?? ""
    ada.jar.cookies.set(COOKIE, own)
    await ada.send("/auth/reauth")
    ada.jar.cookies.set(COOKIE, bobSession)
    const swapped = await prove(ada, { method: "password", email: "bob@example.test", password: "bob-pw" })
    expect(swapped.headers.get("location")).toContain("error=AccessDenied")
    // Bob signed in an hour after T0; no newer proof time was issued for his session
    expect((await decode({ token: bobSession, secret: SECRET, salt: COOKIE }))?.authTime).toBe(T0 / 1000 + 3600)
    expect(swapped.headers.getSetCookie().some((line) => line.startsWith(`${COOKIE}=`))).toBe(false)
  })

  it("an off-origin callbackUrl is refused: the run ends on the site's own origin", async () => {
    const client = new AuthClient(config())
    await signIn(client)
    await client.send(`/auth/reauth?callbackUrl=${encodeURIComponent("https://evil.example/steal")}`)
    const done = await prove(client, { method: "password", email: "ada@example.test", password: "ada-pw" })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(ORIGIN)
  })

  it("a replayed flow state is refused: the answer's state resumes once", async () => {
    const client = new AuthClient(config())
    await signIn(client)
    await client.send("/auth/reauth?callbackUrl=%2Fsettings")
    const flowState = client.jar.get("authchart.flow.reauth") ?? ""
    expect(flowState).not.toBe("")
    const wrong = await prove(client, { method: "password", email: "ada@example.test", password: "nope" })
    expect(wrong.status).toBe(200)
    // the state the wrong answer resumed, sent again
    client.jar.cookies.set("authchart.flow.reauth", flowState)
    const replayed = await prove(client, { method: "password", email: "ada@example.test", password: "ada-pw" })
    expect(replayed.headers.get("location")).toContain("error=FlowStateError")
  })

  it("guessing is bounded per user: after 5 wrong answers the run ends, and a new run is refused too", async () => {
    const client = new AuthClient(config())
    await signIn(client)
    await client.send("/auth/reauth")
    for (let i = 0; i < 4; i++) {
      expect((await prove(client, { method: "password", email: "ada@example.test", password: `guess-${i}` })).status).toBe(200)
    }
    const fifth = await prove(client, { method: "password", email: "ada@example.test", password: "guess-5" })
    expect(fifth.headers.get("location")).toContain("error=AccessDenied")
    await client.send("/auth/reauth")
    const right = await prove(client, { method: "password", email: "ada@example.test", password: "ada-pw" })
    expect(right.headers.get("location")).toContain("error=AccessDenied")
  })

  it("POST /reauth without the CSRF token is refused", async () => {
    const client = new AuthClient(config())
    await signIn(client)
    await client.send("/auth/reauth")
    const response = await client.send("/auth/reauth", { form: { method: "password", email: "ada@example.test", password: "ada-pw" } })
    expect(response.headers.get("location")).toContain("error=MissingCSRF")
  })
})

it("Express: requireRecentAuth(req, config, { maxAge }, res) guards a route; the re-authentication brings the user back", async () => {
  const cfg = config()
  const app = express()
  app.use("/auth", ExpressAuth(cfg))
  app.get("/account/delete", async (req, res) => {
    const result = await requireRecentAuthExpress(req, cfg, { maxAge: Number(req.query.maxAge ?? 300) }, res)
    if (!result.ok) return void res.redirect(303, result.redirect)
    res.json({ user: result.session.user?.name, authTime: result.authTime })
  })
  const server = app.listen(0, "127.0.0.1")
  await new Promise((resolve) => server.once("listening", resolve))
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const client = new AuthClient(cfg, base)
    const http = (path: string) => fetch(`${base}${path}`, { headers: { cookie: client.jar.header() }, redirect: "manual" })
    const signedOut = await http("/account/delete")
    expect(signedOut.status).toBe(303)
    expect(new URL(signedOut.headers.get("location") ?? "").pathname).toBe("/auth/signin")
    await signIn(client)
    const fresh = await http("/account/delete")
    expect(await fresh.json()).toMatchObject({ user: "Ada", authTime: expect.any(Number) })
    // maxAge 0 a second later: the proof is too old
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const old = await http("/account/delete?maxAge=0")
    expect(old.status).toBe(303)
    const location = new URL(old.headers.get("location") ?? "")
    expect(location.pathname).toBe("/auth/reauth")
    expect(location.searchParams.get("callbackUrl")).toBe(`${base}/account/delete?maxAge=0`)
  } finally {
    server.close()
  }
})
