/**
 * Email one-time codes end to end, through a real SMTP server and a real redis-server: the address is
 * posted, the code arrives by mail, the same browser types it on the code page and is signed in. Run
 * with the cookie flow store (no adapter), the Redis flow store with the Redis server-state port, and
 * an adapter with database sessions; then the bad inputs of the email flow for each.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "../src/index.js"
import { RedisAdapter } from "../src/adapters/redis.js"
import EmailCode from "../src/providers/email-code/index.js"
import { RedisFlowStore, RedisServerState } from "../src/stores/redis.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { closedPort } from "./support/smtp.js"
import { codeIn, emailCodeApp, usePeers } from "./support/email-code.js"

const peers = usePeers()

const setups: [string, () => Partial<AuthConfig>][] = [
  ["the cookie flow store (JWT, no adapter)", () => ({})],
  [
    "the Redis flow store and server state",
    () => ({
      flowStore: RedisFlowStore(peers.redis, { prefix: "code-flow:" }),
      serverState: RedisServerState(peers.redis, { prefix: "code-state:" }),
    }),
  ],
  [
    "an adapter (Redis) with database sessions",
    () => ({ adapter: RedisAdapter(peers.redis, { prefix: "code-db:" }), session: { strategy: "database" } }),
  ],
]

describe.each(setups)("email codes with %s", (_, extra) => {
  function app(more: Partial<AuthConfig> = {}) {
    return emailCodeApp({ ...extra(), ...more }, peers.smtp)
  }

  it("request a code → one message with 6 digits → type it on the code page → signed in at the callback URL", async () => {
    const { client, config, requestCode, enterCode, events } = app()
    const { res, mail } = await requestCode("  Carol@Example.TEST ", { callbackUrl: "/inbox" })
    expect(res.status).toBe(200)
    const page = await res.text()
    expect(page).toContain("<strong>carol@example.test</strong>")
    expect(page).toContain('name="step" value="code"')
    expect(mail.to).toEqual(["carol@example.test"])
    expect(mail.subject).toBe("Your sign-in code for app.test")
    expect(mail.text).toMatch(/It expires in 10 minutes\./)

    const reloaded = await client.send("/auth/callback/email-code")
    expect(reloaded.status).toBe(200)
    expect(await reloaded.text()).toContain('name="code"')

    const done = await enterCode(codeIn(mail))
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/inbox`)
    const session = (await (await client.send("/auth/session")).json()) as { user: { email: string } }
    expect(session.user.email).toBe("carol@example.test")
    // with an adapter the address becomes a user (created here); without one the JWT carries it
    expect(events).toEqual([`signIn:carol@example.test:${config.adapter ? "true" : "undefined"}`])
  })

  it("a wrong code rests on the code page with the attempts left; the right one then signs in", async () => {
    const { client, requestCode, enterCode } = app()
    const { mail } = await requestCode("dave@example.test")
    const wrong = await enterCode(codeIn(mail) === "000000" ? "111111" : "000000")
    expect(wrong.status).toBe(200)
    expect(await wrong.text()).toContain("That code is not right. Attempts left: 4.")
    expect((await enterCode(` ${codeIn(mail).slice(0, 3)} ${codeIn(mail).slice(3)} `)).headers.get("location")).toBe(ORIGIN)
    expect(client.jar.get("authjs.session-token")).toBeTruthy()
  })

  it.each([
    ["no address", undefined],
    ["an empty address", ""],
    ["no @", "eve.example.test"],
    ["a homoglyph @ (U+FF20)", "eve＠example.test@evil.test"],
    ["two addresses after a comma", "eve@example.test,mallory@evil.test"],
  ])("%s is EmailSignInError on the sign-in page, logged once; nothing is sent", async (_, email) => {
    const { requestCode, log } = app()
    const before = peers.smtp.messages.length
    const { res } = await requestCode(email, { noMail: true })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError&code=invalid_email`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["EmailSignInError"])
    expect(peers.smtp.messages).toHaveLength(before)
  })

  it("a code request without the CSRF token is MissingCSRF; nothing is sent", async () => {
    const { client, log } = app()
    const before = peers.smtp.messages.length
    const res = await client.send("/auth/signin/email-code", { form: { email: "frank@example.test" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingCSRF"])
    expect(peers.smtp.messages).toHaveLength(before)
  })

  it("a code typed without the CSRF token is MissingCSRF; no session", async () => {
    const { client, requestCode, log } = app()
    const { mail } = await requestCode("grace@example.test")
    const res = await client.send("/auth/callback/email-code", { form: { step: "code", code: codeIn(mail) } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingCSRF"])
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  })

  it.each([
    "https://evil.test/phish",
    "//evil.test/phish",
    "javascript:alert(1)",
  ])("callbackUrl %s is not followed: the sign-in lands on the site's own origin", async (callbackUrl) => {
    const { requestCode, enterCode } = app()
    const { mail } = await requestCode("heidi@example.test", { callbackUrl })
    const done = await enterCode(codeIn(mail))
    expect(done.status).toBe(303)
    expect(new URL(done.headers.get("location") as string).origin).toBe(ORIGIN)
  })
})

describe("email code provider options", () => {
  it("sendCode replaces nodemailer: it gets the address, the code and the expiry", async () => {
    const sent: { identifier: string; code: string; expires: Date }[] = []
    const log = captureLogger()
    const provider = EmailCode({ sendCode: (params) => void sent.push(params) })
    const client = new AuthClient({ secret: SECRET, trustHost: true, logger: log.logger, providers: [provider] })
    const csrfToken = await client.csrf()
    const started = Date.now()
    await client.send("/auth/signin/email-code", { form: { csrfToken, email: "ivan@example.test" } })
    expect(sent).toHaveLength(1)
    expect(sent[0]?.identifier).toBe("ivan@example.test")
    expect(sent[0]?.code).toMatch(/^\d{6}$/)
    expect(sent[0]?.expires.getTime()).toBeGreaterThanOrEqual(started + 600_000)
    const res = await client.send("/auth/callback/email-code", { form: { csrfToken, step: "code", code: sent[0]?.code as string } })
    expect(res.headers.get("location")).toBe(ORIGIN)
  })

  it("needs nothing registered: the sign-in page offers it as an email form posting to /auth/signin/email-code", async () => {
    const client = new AuthClient({ secret: SECRET, trustHost: true, providers: [EmailCode({ sendCode: () => {} })] })
    const page = await (await client.send("/auth/signin")).text()
    expect(page).toContain('action="http://app.test/auth/signin/email-code"')
    expect(page).toContain('type="email" name="email"')
    const listed = (await (await client.send("/auth/providers")).json()) as Record<string, { type: string }>
    expect(listed["email-code"]?.type).toBe("email-code")
  })

  it("SMTP server down: EmailSignInError send_failed on the sign-in page within a bounded time, no code page", async () => {
    const log = captureLogger()
    const port = await closedPort()
    const provider = EmailCode({ server: { host: "127.0.0.1", port, connectionTimeout: 1000 } })
    const client = new AuthClient({ secret: SECRET, trustHost: true, logger: log.logger, providers: [provider] })
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signin/email-code", { form: { csrfToken, email: "judy@example.test" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError&code=send_failed`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["EmailSignInError"])
    expect(client.jar.get("authchart.flow.email-code")).toBeUndefined()
  })

  it("without server or sendCode the factory throws a TypeError naming the provider", () => {
    expect(() => EmailCode({})).toThrow('The email code provider ("email-code") needs `server` (SMTP) or `sendCode`.')
  })
})
