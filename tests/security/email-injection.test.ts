/**
 * Attack class: email address parsing and mail header injection. The address of an email sign-in is
 * attacker input that ends up in an SMTP envelope and a `To:` header. CRLF with extra headers, several
 * addresses (commas, semicolons, groups, display names), comments, quoted local parts, Unicode
 * look-alikes (normalised with NFKC first) and very long input are refused as `EmailSignInError`
 * (`code=invalid_email`) before anything is sent; what is sent goes to exactly one recipient, the
 * normalised address. Checked on a real SMTP server (smtp-server + mailparser), by envelope and header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"
import { ORIGIN, browser, errorTypes } from "./support.js"

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp?.stop())

const INVALID = `${ORIGIN}/auth/signin?error=EmailSignInError&code=invalid_email`
const VERIFY = `${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`

/** Inputs that try to reach a second mailbox (the attacker's), or are not one plain address. */
const REFUSED: readonly string[] = [
  "victim@example.test\r\nBcc: attacker@evil.test",
  "victim@example.test\nCc: attacker@evil.test",
  "victim@example.test\rBcc: attacker",
  "victim@example.test\r\n\r\nbody injected",
  "victim@example.test>\r\nBcc:<attacker@evil.test",
  "victim@example.test\u2028Bcc: attacker@evil.test",
  "victim@example.test\u0085Bcc: attacker",
  "victim@example.test,attacker@evil.test",
  "victim@example.test,attacker",
  "attacker,victim@example.test",
  "victim@example.test;attacker",
  "victim@example.test attacker",
  "victim@example.test\tattacker",
  "Victim <victim@example.test>",
  "attacker@evil.test <victim@example.test>",
  "<victim@example.test>, attacker",
  "friends:victim@example.test,attacker;",
  "victim@example.test (attacker@evil.test)",
  "victim(comment)@example.test",
  '"attacker@evil.test"@example.test',
  '"victim"@example.test',
  "'victim'@example.test",
  "victim\\@evil.test@example.test",
  "victim@[127.0.0.1]",
  "victim@example.test\u0000attacker@evil.test",
  "victim@example.test＠evil.test", // full-width @, NFKC makes it a second @
  "victim﹫example.test,attacker", // small commercial at
  "=?utf-8?q?attacker=40evil.test?= <victim@example.test>",
  "victim@example.test.",
  "@example.test",
  "victim@",
  "victim",
  "",
  " ",
  `${"a".repeat(10_000)}@example.test`,
  `victim@${"sub.".repeat(100)}example.test`,
]

/** Inputs that are one address after NFKC, trim and lower-casing, and where it is delivered. */
const ACCEPTED: Array<[string, string]> = [
  ["victim@example.test", "victim@example.test"],
  ["  Victim@Example.TEST ", "victim@example.test"],
  ["ｖｉｃｔｉｍ@ｅｘａｍｐｌｅ.ｔｅｓｔ", "victim@example.test"], // full-width letters
  ["victim+tag@example.test", "victim+tag@example.test"],
]

function site() {
  return browser([Nodemailer({ server: smtp.url, from: "auth@example.test" })], { adapter: MemoryAdapter() })
}

async function request(body: { form?: Record<string, string>; json?: unknown }) {
  const { client, log } = site()
  const csrfToken = await client.csrf()
  const before = smtp.messages.length
  const res =
    body.json !== undefined
      ? await client.send("/auth/signin/nodemailer", { json: { csrfToken, ...(body.json as object) } })
      : await client.send("/auth/signin/nodemailer", { form: { csrfToken, ...body.form } })
  return { res, log, before }
}

describe("email address parsing and header injection", () => {
  it.each(REFUSED.map((e) => [e]))("email injection: %j is refused before anything is mailed", async (email) => {
    const { res, log, before } = await request({ form: { email } })
    expect(res.headers.get("location")).toBe(INVALID)
    expect(errorTypes(log)).toEqual(["EmailSignInError"])
    // give a stray message time to arrive, then count
    await new Promise((r) => setTimeout(r, 50))
    expect(smtp.messages).toHaveLength(before)
  })

  it.each(ACCEPTED)("email injection: %j is mailed to exactly one recipient, %s", async (email, address) => {
    const { res, before } = await request({ form: { email } })
    expect(res.headers.get("location")).toBe(VERIFY)
    const message = await smtp.waitForMessage(before + 1)
    expect(message.envelopeTo).toEqual([address])
    expect(message.to).toEqual([address])
    expect(smtp.messages).toHaveLength(before + 1)
    const link = new URL(message.links.find((l) => l.includes("/callback/nodemailer")) as string)
    expect(link.searchParams.get("email")).toBe(address)
  })

  it.each([
    ["an array of addresses", { email: ["victim@example.test", "attacker@evil.test"] }],
    ["an object", { email: { address: "victim@example.test", bcc: "attacker@evil.test" } }],
    ["a number", { email: 42 }],
    ["__proto__ smuggling", JSON.parse('{"__proto__": {"email": "attacker@evil.test"}}') as object],
  ])("email injection: a JSON body with %s is refused", async (_, json) => {
    const { res, log, before } = await request({ json })
    expect(res.headers.get("location")).toBe(INVALID)
    expect(errorTypes(log)).toEqual(["EmailSignInError"])
    expect(smtp.messages).toHaveLength(before)
  })

  it("email injection: a second `email` field in the form does not add a recipient", async () => {
    const { client } = site()
    const csrfToken = await client.csrf()
    const before = smtp.messages.length
    const body = `csrfToken=${csrfToken}&email=victim%40example.test&email=attacker%40evil.test`
    const res = await client.send("/auth/signin/nodemailer", { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(res.headers.get("location")).toBe(VERIFY)
    const message = await smtp.waitForMessage(before + 1)
    expect(message.envelopeTo).toHaveLength(1)
    expect(smtp.messages).toHaveLength(before + 1)
  })
})
