/**
 * The email providers (`nodemailer`, `email`) and their message, against a real SMTP server
 * (smtp-server + mailparser, tests/support/smtp.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import Email from "../src/providers/email.js"
import { renderVerificationEmail } from "../src/providers/email-message.js"
import type { EmailConfig, SendVerificationRequestParams } from "../src/providers/email-types.js"
import Nodemailer, { DEFAULT_FROM } from "../src/providers/nodemailer.js"
import { closedPort, refusingSmtp, silentServer, startSmtp } from "./support/smtp.js"
import type { SmtpCapture } from "./support/smtp.js"

const LINK =
  "https://app.example.com/auth/callback/nodemailer?callbackUrl=https%3A%2F%2Fapp.example.com%2F&token=" +
  "a".repeat(64) +
  "&email=ada%40example.test"

function params(provider: EmailConfig, overrides: Partial<SendVerificationRequestParams> = {}) {
  return {
    identifier: "ada@example.test",
    url: LINK,
    expires: new Date(Date.now() + 86_400_000),
    provider,
    token: "a".repeat(64),
    theme: {},
    request: new Request("https://app.example.com/auth/signin/nodemailer", { method: "POST" }),
    ...overrides,
  } satisfies SendVerificationRequestParams
}

/** The error a send fails with (the test fails if it succeeds). */
async function failure(send: unknown): Promise<Error> {
  try {
    await send
  } catch (error) {
    expect(error).toBeInstanceOf(Error)
    return error as Error
  }
  throw new Error("expected the send to fail")
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1
}

describe("renderVerificationEmail", () => {
  const escapedLink = LINK.replaceAll("&", "&amp;")

  it("has Auth.js' subject and text body, byte for byte", () => {
    const { subject, text } = renderVerificationEmail({ url: LINK, host: "app.example.com", theme: {} })
    expect(subject).toBe("Sign in to app.example.com")
    expect(text).toBe(`Sign in to app.example.com\n${LINK}\n\n`)
  })

  it("puts the link only in the button's href, escaped", () => {
    const { html } = renderVerificationEmail({ url: LINK, host: "app.example.com" })
    expect(html).toContain(`<a href="${escapedLink}"`)
    expect(occurrences(html, escapedLink)).toBe(1)
    expect(occurrences(html, "token=")).toBe(1)
    expect(html).not.toContain(LINK) // the raw `&` never appears
  })

  it("shows the host with a zero-width space before each dot", () => {
    const { html } = renderVerificationEmail({ url: LINK, host: "app.example.com" })
    expect(html).toContain("Sign in to <strong>app&#8203;.example&#8203;.com</strong>")
    expect(html.replace(`href="${escapedLink}"`, "")).not.toContain("app.example.com")
  })

  it("escapes a hostile host and link", () => {
    const url = "https://x.test/cb?a=\"><script>alert(1)</script>&b='x'"
    const { html, subject, text } = renderVerificationEmail({ url, host: 'evil"<b>.test', theme: {} })
    expect(html).not.toMatch(/<script|<b>/)
    expect(html).toContain("evil&quot;&lt;b&gt;&#8203;.test")
    expect(html).toContain('href="https://x.test/cb?a=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;b=&#39;x&#39;"')
    expect(subject).toBe('Sign in to evil"<b>.test')
    expect(text).toBe(`Sign in to evil"<b>.test\n${url}\n\n`)
  })

  it("uses the default colours without a theme", () => {
    const { html } = renderVerificationEmail({ url: LINK, host: "app.example.com" })
    expect(html).toContain('bgcolor="#346df1"')
    expect(html).toContain("border: 1px solid #346df1;")
    expect(html).toContain("color: #fff;")
  })

  it.each([
    "#0a7d32",
    "#abc",
    "#AABBCCDD",
    "rgb(10, 20, 30)",
    "rgba(10 20 30 / 50%)",
    "hsl(120deg 50% 40%)",
    "hsla(120, 50%, 40%, 0.5)",
    "RebeccaPurple",
    "tomato",
  ])("accepts the colour %s", (color) => {
    const { html } = renderVerificationEmail({ url: LINK, host: "h.test", theme: { brandColor: color, buttonText: color } })
    expect(html).toContain(`bgcolor="${color}"`)
    expect(html).toContain(`color: ${color};`)
    expect(html).not.toContain("#346df1")
  })

  it.each([
    'red;background:url("https://evil.test/x")',
    '"><script>alert(1)</script>',
    "expression(alert(1))",
    "url(javascript:alert(1))",
    "#12",
    "#ggg",
    "rgb(1, 2)",
    "rgb(1, 2, 3) red",
    "notacolor",
    "",
    "   ",
  ])("falls back to the defaults for %j", (color) => {
    const { html } = renderVerificationEmail({ url: LINK, host: "h.test", theme: { brandColor: color, buttonText: color } })
    expect(html).toContain('bgcolor="#346df1"')
    expect(html).toContain("color: #fff;")
    expect(html).not.toMatch(/evil|script|expression|javascript|notacolor/)
  })

  it.each(["javascript:alert(1)", "data:text/html,hi", "/relative/path", "not a url"])("refuses the link %j with a TypeError", (url) => {
    expect(() => renderVerificationEmail({ url, host: "h.test" })).toThrow(TypeError)
  })
})

describe("Nodemailer provider: configuration", () => {
  it("is an email provider with Auth.js' defaults, keeping the user's options", () => {
    const options = { server: "smtp://127.0.0.1:2525" }
    const provider = Nodemailer(options)
    expect(provider).toMatchObject({
      id: "nodemailer",
      name: "Nodemailer",
      type: "email",
      server: "smtp://127.0.0.1:2525",
      from: DEFAULT_FROM,
      maxAge: 86_400,
    })
    expect(DEFAULT_FROM).toBe("authchart <no-reply@authchart.invalid>")
    expect(provider.options).toBe(options)
    expect(typeof provider.sendVerificationRequest).toBe("function")
    expect(provider.generateVerificationToken).toBeUndefined()
    expect(provider.normalizeIdentifier).toBeUndefined()
  })

  it.each([
    {},
    { server: "" },
    { server: undefined, from: "a@b.test" },
  ])("throws a TypeError at construction without a server (%j)", (options) => {
    expect(() => Nodemailer(options)).toThrow(TypeError)
    expect(() => Nodemailer(options)).toThrow(/Nodemailer provider \("nodemailer"\) needs `server`/)
  })

  it("lets user options win over the preset", () => {
    const sendVerificationRequest = vi.fn()
    const generateVerificationToken = () => "token"
    const normalizeIdentifier = (value: string) => value.trim()
    const provider = Nodemailer({
      server: { host: "127.0.0.1", port: 2525 },
      id: "magic",
      name: "Magic link",
      from: "Acme <login@acme.test>",
      maxAge: 600,
      sendVerificationRequest,
      generateVerificationToken,
      normalizeIdentifier,
      secret: "email-secret",
    })
    expect(provider).toMatchObject({ id: "magic", name: "Magic link", type: "email", from: "Acme <login@acme.test>" })
    expect(provider.maxAge).toBe(600)
    expect(provider.sendVerificationRequest).toBe(sendVerificationRequest)
    expect(provider.generateVerificationToken).toBe(generateVerificationToken)
    expect(provider.normalizeIdentifier).toBe(normalizeIdentifier)
    expect(provider.secret).toBe("email-secret")
  })

  it("ignores options given as undefined", () => {
    const provider = Nodemailer({ server: "smtp://127.0.0.1:2525", id: undefined, from: undefined, maxAge: undefined })
    expect(provider).toMatchObject({ id: "nodemailer", from: DEFAULT_FROM, maxAge: 86_400 })
  })

  it("cannot be retyped by the options", () => {
    const provider = Nodemailer({ server: "smtp://127.0.0.1:2525", ...({ type: "oauth" } as object) })
    expect(provider.type).toBe("email")
  })
})

describe("Email provider", () => {
  it("is Nodemailer under the id `email`", () => {
    const options = { server: "smtp://127.0.0.1:2525", from: "Acme <login@acme.test>" }
    const provider = Email(options)
    expect(provider).toMatchObject({
      id: "email",
      name: "Email",
      type: "email",
      from: "Acme <login@acme.test>",
      maxAge: 86_400,
    })
    expect(provider.options).toBe(options)
  })

  it("can still be renamed", () => {
    expect(Email({ server: "smtp://127.0.0.1:2525", id: "magic", name: "Magic" })).toMatchObject({
      id: "magic",
      name: "Magic",
    })
  })

  it("throws a TypeError naming itself without a server", () => {
    expect(() => Email({})).toThrow(TypeError)
    expect(() => Email({})).toThrow(/Email provider \("email"\) needs `server`/)
  })
})

describe("Nodemailer provider: sending through a real SMTP server", () => {
  let smtp: SmtpCapture
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await smtp.stop()
  })

  it("sends exactly one message, to the identifier, with the link in the text and the HTML", async () => {
    const provider = Nodemailer({ server: smtp.url, from: "Acme <login@acme.test>" })
    const before = smtp.messages.length
    await provider.sendVerificationRequest(params(provider))
    const message = await smtp.waitForMessage(before + 1)
    expect(smtp.messages).toHaveLength(before + 1)
    expect(message.to).toEqual(["ada@example.test"])
    expect(message.envelopeTo).toEqual(["ada@example.test"])
    expect(message.from).toBe("Acme <login@acme.test>")
    expect(message.subject).toBe("Sign in to app.example.com")
    expect(message.text.trimEnd()).toBe(`Sign in to app.example.com\n${LINK}`)
    expect(message.links).toEqual([LINK, LINK]) // the button's href, then the text part
    expect(message.html).toContain("app&#8203;.example&#8203;.com")
  })

  it("sends from the default sender, with transport options instead of a URL", async () => {
    const provider = Email({ server: { host: "127.0.0.1", port: smtp.port, secure: false, ignoreTLS: true } })
    const before = smtp.messages.length
    await provider.sendVerificationRequest(params(provider, { identifier: "grace@example.test", theme: { brandColor: "#0a7d32" } }))
    const message = await smtp.waitForMessage(before + 1)
    expect(message.to).toEqual(["grace@example.test"])
    expect(message.from).toBe(DEFAULT_FROM)
    expect(message.html).toContain('bgcolor="#0a7d32"')
  })

  it("takes `from` from the provider it is given (the resolved config)", async () => {
    const provider = Nodemailer({ server: smtp.url })
    const before = smtp.messages.length
    await provider.sendVerificationRequest(params({ ...provider, from: "Resolved <r@acme.test>" }))
    expect((await smtp.waitForMessage(before + 1)).from).toBe("Resolved <r@acme.test>")
  })

  it("never fans one identifier out to several recipients", async () => {
    const provider = Nodemailer({ server: smtp.url })
    const before = smtp.messages.length
    const identifier = "ada@example.test, mallory@evil.test"
    // One address object, one (quoted, invalid) RCPT TO: the server refuses it, nobody gets mail.
    await expect(provider.sendVerificationRequest(params(provider, { identifier }))).rejects.toThrow(
      'Email(s) ("ada@example.test, mallory"@evil.test) could not be sent',
    )
    expect(smtp.messages).toHaveLength(before)
  })

  it("uses the user's sendVerificationRequest instead of sending mail", async () => {
    const sendVerificationRequest = vi.fn()
    const provider = Nodemailer({ server: smtp.url, sendVerificationRequest })
    const before = smtp.messages.length
    const request = params(provider)
    await provider.sendVerificationRequest(request)
    expect(sendVerificationRequest).toHaveBeenCalledExactlyOnceWith(request)
    expect(smtp.messages).toHaveLength(before)
  })
})

describe("Nodemailer provider: failures", () => {
  it("throws, naming the address, when the server rejects the recipient", async () => {
    const refusing = await refusingSmtp()
    try {
      const provider = Nodemailer({ server: refusing.url })
      const error = await failure(provider.sendVerificationRequest(params(provider, { identifier: "nobody@example.test" })))
      expect(error.message).toBe("Email(s) (nobody@example.test) could not be sent")
      expect(error.cause).toMatchObject({ code: "EENVELOPE", rejected: ["nobody@example.test"] })
      expect(refusing.attempts).toEqual(["nobody@example.test"])
    } finally {
      await refusing.stop()
    }
  })

  it.each([
    ["rejected", { rejected: ["a@example.test"], pending: [] }, "Email(s) (a@example.test) could not be sent"],
    ["pending", { rejected: [], pending: [{ name: "", address: "b@example.test" }] }, "Email(s) (b@example.test) could not be sent"],
  ])("throws when the transport reports %s recipients", async (_kind, outcome, message) => {
    const transport = {
      name: "fake",
      version: "1",
      send(mail: { data: unknown }, callback: (error: Error | null, info: unknown) => void) {
        callback(null, { messageId: "<x@fake>", envelope: {}, accepted: [], ...outcome })
      },
    }
    const provider = Nodemailer({ server: transport })
    await expect(provider.sendVerificationRequest(params(provider))).rejects.toThrow(message)
  })

  it("fails fast when nothing listens on the SMTP port", async () => {
    const port = await closedPort()
    const provider = Nodemailer({ server: { host: "127.0.0.1", port, connectionTimeout: 1_000 } })
    const started = performance.now()
    await expect(provider.sendVerificationRequest(params(provider))).rejects.toThrow("Email(s) (ada@example.test) could not be sent")
    expect(performance.now() - started).toBeLessThan(3_000)
  })

  it("gives up on a server that never greets, within the configured bound", async () => {
    const silent = await silentServer()
    try {
      const provider = Nodemailer({ server: `smtp://127.0.0.1:${silent.port}?greetingTimeout=500` })
      const started = performance.now()
      const error = await failure(provider.sendVerificationRequest(params(provider)))
      expect(performance.now() - started).toBeLessThan(3_000)
      expect(error.message).toBe("Email(s) (ada@example.test) could not be sent")
      expect(error.cause).toMatchObject({ code: "ETIMEDOUT" })
    } finally {
      await silent.stop()
    }
  })
})

describe("Nodemailer provider: the transport", () => {
  afterEach(() => {
    vi.doUnmock("nodemailer")
    vi.resetModules()
  })

  function mockNodemailer() {
    const sendMail = vi.fn(async () => ({ messageId: "<m@test>", accepted: ["ada@example.test"], rejected: [], pending: [] }))
    const createTransport = vi.fn((_options: unknown) => ({ sendMail }))
    vi.doMock("nodemailer", () => ({ createTransport, default: { createTransport } }))
    return { createTransport, sendMail }
  }

  it("is built once per provider, with bounded timeouts added to transport options", async () => {
    const { createTransport, sendMail } = mockNodemailer()
    const provider = Nodemailer({ server: { host: "127.0.0.1", port: 2525 } })
    await provider.sendVerificationRequest(params(provider))
    await provider.sendVerificationRequest(params(provider))
    expect(createTransport).toHaveBeenCalledExactlyOnceWith({
      host: "127.0.0.1",
      port: 2525,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 10_000,
    })
    expect(sendMail).toHaveBeenCalledTimes(2)
    const other = Nodemailer({ server: { host: "127.0.0.1", port: 2525 } })
    await other.sendVerificationRequest(params(other))
    expect(createTransport).toHaveBeenCalledTimes(2)
  })

  it.each([
    [
      "smtp://user:p%40ss@127.0.0.1:2525",
      "smtp://user:p%40ss@127.0.0.1:2525?connectionTimeout=10000&greetingTimeout=10000&socketTimeout=10000",
    ],
    [
      "smtps://127.0.0.1?pool=true&socketTimeout=30000",
      "smtps://127.0.0.1?pool=true&socketTimeout=30000&connectionTimeout=10000&greetingTimeout=10000",
    ],
    [
      "smtp://127.0.0.1?connectionTimeout=1&greetingTimeout=2&socketTimeout=3",
      "smtp://127.0.0.1?connectionTimeout=1&greetingTimeout=2&socketTimeout=3",
    ],
  ])("adds the timeouts the URL %s lacks", async (server, expected) => {
    const { createTransport } = mockNodemailer()
    const provider = Nodemailer({ server })
    await provider.sendVerificationRequest(params(provider))
    expect(createTransport).toHaveBeenCalledExactlyOnceWith(expected)
  })

  it("keeps the user's own timeouts, and a `url` option's", async () => {
    const { createTransport } = mockNodemailer()
    const a = Nodemailer({ server: { host: "h", connectionTimeout: 1, socketTimeout: 2 } })
    await a.sendVerificationRequest(params(a))
    expect(createTransport).toHaveBeenLastCalledWith({
      host: "h",
      connectionTimeout: 1,
      greetingTimeout: 10_000,
      socketTimeout: 2,
    })
    const b = Nodemailer({ server: { url: "smtp://h:25", pool: true } })
    await b.sendVerificationRequest(params(b))
    expect(createTransport).toHaveBeenLastCalledWith({
      url: "smtp://h:25?connectionTimeout=10000&greetingTimeout=10000&socketTimeout=10000",
      pool: true,
    })
  })

  it("sends to the identifier as one address object, with the rendered message", async () => {
    const { sendMail } = mockNodemailer()
    const provider = Nodemailer({ server: "smtp://h:25", from: "Acme <login@acme.test>" })
    await provider.sendVerificationRequest(params(provider))
    expect(sendMail).toHaveBeenCalledExactlyOnceWith({
      to: { name: "", address: "ada@example.test" },
      from: "Acme <login@acme.test>",
      ...renderVerificationEmail({ url: LINK, host: "app.example.com", theme: {} }),
    })
  })

  it("names the package to install when nodemailer cannot be loaded, and retries later", async () => {
    vi.doMock("nodemailer", () => {
      throw new Error("Cannot find package 'nodemailer'")
    })
    const provider = Nodemailer({ server: "smtp://h:25" })
    await expect(provider.sendVerificationRequest(params(provider))).rejects.toThrow(/npm install nodemailer/)
    vi.doUnmock("nodemailer")
    vi.resetModules()
    const { createTransport } = mockNodemailer()
    await provider.sendVerificationRequest(params(provider))
    expect(createTransport).toHaveBeenCalledTimes(1)
  })
})
