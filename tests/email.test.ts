/**
 * Email magic-link sign-in through a real SMTP server (smtp-server on 127.0.0.1, messages parsed with
 * mailparser), with each adapter backend. The link is opened with a fresh cookie jar: another device.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "../src/index.js"
import type { Adapter } from "../src/adapters/types.js"
import Nodemailer from "../src/providers/nodemailer.js"
import type { SendVerificationRequestParams } from "../src/providers/email-types.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { backends } from "./support/backends.js"
import { closedPort, startSmtp } from "./support/smtp.js"

type Smtp = Awaited<ReturnType<typeof startSmtp>>
let smtp: Smtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp?.stop())

function magicLinkIn(message: { text: string; links: string[] }): URL {
  const link = message.links.find((l) => l.startsWith(`${ORIGIN}/auth/callback/`))
  if (!link) throw new Error(`no magic link in: ${message.text}`)
  return new URL(link)
}

describe.each(backends)("email sign-in with the $name adapter", (backend) => {
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
      providers: [Nodemailer({ server: smtp.url, from: "authchart <auth@example.test>" })],
      events: {
        createUser: ({ user }) => void events.push(`createUser:${user.email}`),
        updateUser: ({ user }) => void events.push(`updateUser:${user.email}`),
        signIn: ({ isNewUser }) => void events.push(`signIn:${isNewUser}`),
      },
      ...extra,
    }
    return { config, client: new AuthClient(config), log, events }
  }

  async function requestLink(client: AuthClient, email: string, callbackUrl = "/inbox") {
    const before = smtp.messages.length
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signin/nodemailer", { form: { csrfToken, email, callbackUrl } })
    return { res, before }
  }

  it("request a link → one message to the right address → open it on another device → signed in, user created", async () => {
    const { client, config, events } = makeClient()
    const { res, before } = await requestLink(client, "  Carol@Example.TEST ")
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`)
    const message = await smtp.waitForMessage(before + 1)
    expect(smtp.messages).toHaveLength(before + 1)
    expect(message.to).toEqual(["carol@example.test"])
    expect(message.subject).toBe("Sign in to app.test")
    const link = magicLinkIn(message)
    expect(link.pathname).toBe("/auth/callback/nodemailer")
    expect(link.searchParams.get("email")).toBe("carol@example.test")
    expect(message.html).toContain(link.searchParams.get("token") as string)

    const otherDevice = new AuthClient(config)
    const done = await otherDevice.send(`${link.pathname}${link.search}`)
    expect(done.status).toBe(302)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/inbox`)
    const session = (await (await otherDevice.send("/auth/session")).json()) as { user: { email: string } }
    expect(session.user.email).toBe("carol@example.test")
    expect((await adapter.getUserByEmail?.("carol@example.test"))?.emailVerified).toBeInstanceOf(Date)
    expect(events).toEqual(["createUser:carol@example.test", "signIn:true"])

    const again = await new AuthClient(config).send(`${link.pathname}${link.search}`)
    expect(again.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`)
  })

  it("an existing user's emailVerified is refreshed (updateUser), no new user", async () => {
    const { client, config, events } = makeClient()
    const { before } = await requestLink(client, "carol@example.test")
    const link = magicLinkIn(await smtp.waitForMessage(before + 1))
    await new AuthClient(config).send(`${link.pathname}${link.search}`)
    expect(events).toEqual(["updateUser:carol@example.test", "signIn:false"])
  })

  it("an expired link → error=Verification", async () => {
    const { client, config } = makeClient()
    const { before } = await requestLink(client, "dave@example.test")
    const link = magicLinkIn(await smtp.waitForMessage(before + 1))
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 25 * 60 * 60 * 1000 })
    try {
      const res = await new AuthClient(config).send(`${link.pathname}${link.search}`)
      expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`)
    } finally {
      vi.useRealTimers()
    }
  })

  it("a link for a@x used with email=b@x → error=Verification", async () => {
    const { client, config } = makeClient()
    const { before } = await requestLink(client, "erin@example.test")
    const link = magicLinkIn(await smtp.waitForMessage(before + 1))
    link.searchParams.set("email", "mallory@example.test")
    const res = await new AuthClient(config).send(`${link.pathname}${link.search}`)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`)
  })

  it("a link without its email param (a custom mail may drop it): the adapter is asked by token alone, as in Auth.js", async () => {
    const asked: { identifier: string | undefined; found: boolean }[] = []
    const use = adapter.useVerificationToken?.bind(adapter)
    const spying: Adapter = {
      ...adapter,
      useVerificationToken: async (params) => {
        const found = (await use?.(params)) ?? null
        asked.push({ identifier: params.identifier, found: found !== null })
        return found
      },
    }
    const { client, config } = makeClient({ adapter: spying })
    const { before } = await requestLink(client, "fay@example.test")
    const link = magicLinkIn(await smtp.waitForMessage(before + 1))
    link.searchParams.delete("email")
    const res = await new AuthClient(config).send(`${link.pathname}${link.search}`)
    // an adapter that finds tokens without their address (memory, Redis) signs in; one that needs it refuses
    expect(asked[0]?.identifier).toBeUndefined()
    const found = asked.some((a) => a.found)
    expect(res.headers.get("location")).toBe(found ? `${ORIGIN}/inbox` : `${ORIGIN}/auth/error?error=Verification`)
  })

  it("a pending link survives a secret rotation", async () => {
    const { client } = makeClient()
    const { before } = await requestLink(client, "frank@example.test")
    const link = magicLinkIn(await smtp.waitForMessage(before + 1))
    const rotated = makeClient({ secret: ["a-new-secret-after-rotation-0123456789", SECRET] })
    const res = await rotated.client.send(`${link.pathname}${link.search}`)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/inbox`)
  })

  it.each([
    ["a homoglyph @ (U+FF20)", "eve＠example.test@evil.test"],
    ["a quoted local part", '"eve"@example.test'],
    ["two addresses after a comma", "eve@example.test,mallory@evil.test"],
    ["no domain", "eve@"],
    ["no @", "eve.example.test"],
  ])("%s is refused with EmailSignInError on the sign-in page; nothing is sent", async (_, email) => {
    const { client, log } = makeClient()
    const { res, before } = await requestLink(client, email)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError&code=invalid_email`)
    expect(smtp.messages).toHaveLength(before)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["EmailSignInError"])
  })

  it("the signIn callback sees verificationRequest and can refuse before anything is sent", async () => {
    const seen: unknown[] = []
    const { client } = makeClient({ callbacks: { signIn: ({ email }) => (seen.push(email), false) } })
    const { res, before } = await requestLink(client, "grace@example.test")
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(seen).toEqual([{ verificationRequest: true }])
    expect(smtp.messages).toHaveLength(before)
  })
})

describe("email failures", () => {
  it("SMTP server down: a clear error within a bounded time, nothing usable stored", async () => {
    const port = await closedPort()
    const stored: string[] = []
    const { MemoryAdapter } = await import("../src/adapters/memory.js")
    const base = MemoryAdapter()
    const adapter: Adapter = {
      ...base,
      createVerificationToken: async (t) => (stored.push(t.token), base.createVerificationToken(t)),
    }
    const log = captureLogger()
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: log.logger,
      providers: [Nodemailer({ server: { host: "127.0.0.1", port, connectionTimeout: 1000 } })],
    })
    const csrfToken = await client.csrf()
    const started = Date.now()
    const res = await client.send("/auth/signin/nodemailer", { form: { csrfToken, email: "henry@example.test" } })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError&code=send_failed`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["EmailSignInError"])
    expect(stored).toHaveLength(1)
    expect(await base.useVerificationToken({ identifier: "henry@example.test", token: stored[0] as string })).toBeNull()
  })

  it("an email provider without an adapter is MissingAdapter at start-up", async () => {
    const log = captureLogger()
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [Nodemailer({ server: "smtp://127.0.0.1:25" })],
    })
    expect((await client.send("/auth/session")).status).toBe(500)
    expect((log.errors[0] as { type?: string }).type).toBe("MissingAdapter")
  })

  it("sendVerificationRequest gets the provider with its signinUrl and callbackUrl, as Auth.js hands it", async () => {
    const sent: SendVerificationRequestParams[] = []
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      providers: [Nodemailer({ server: "smtp://127.0.0.1:25", sendVerificationRequest: (params) => void sent.push(params) })],
    })
    const csrfToken = await client.csrf()
    await client.send("/auth/signin/nodemailer", { form: { csrfToken, email: "ivy@example.test" } })
    const [params] = sent
    expect(params?.provider.signinUrl).toBe(`${ORIGIN}/auth/signin/nodemailer`)
    expect(params?.provider.callbackUrl).toBe(`${ORIGIN}/auth/callback/nodemailer`)
    expect(params?.url.startsWith(`${params?.provider.callbackUrl}?`)).toBe(true)
    expect(params?.provider.id).toBe("nodemailer")
  })
})
