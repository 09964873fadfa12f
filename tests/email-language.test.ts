/**
 * The built-in mails in the user's language, through a real SMTP server: the magic link and the email
 * code, in German for `Accept-Language: de-AT` (subject, text and HTML, no English left), English when
 * the request asks for nothing, in the config's `pages.locale` whatever the request asks, and in a
 * language the app added (`pages.messages`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { AuthConfig } from "../src/index.js"
import { type Messages, de, en } from "../src/messages/index.js"
import EmailCode from "../src/providers/email-code/index.js"
import Nodemailer from "../src/providers/nodemailer.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { type ParsedMessage, type SmtpCapture, startSmtp } from "./support/smtp.js"

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp?.stop())

const HOST = new URL(ORIGIN).host

/** A French catalogue of the app's own (only the mail keys differ from English, for this test). */
const fr: Messages = {
  ...en,
  "magicLink.subject": "Connexion à {host}",
  "magicLink.heading": "Connexion à {host}",
  "magicLink.button": "Se connecter",
  "magicLink.ignore": "Si vous n'avez pas demandé cet e-mail, vous pouvez l'ignorer.",
}

function app(pages?: AuthConfig["pages"]) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    logger: captureLogger().logger,
    providers: [Nodemailer({ server: smtp.url, from: "auth@example.test" }), EmailCode({ server: smtp.url, from: "auth@example.test" })],
    ...(pages ? { pages } : {}),
  }
  return new AuthClient(config)
}

/** Posts the sign-in form of `provider` for `email`, asking for `acceptLanguage`, and returns the mail sent. */
async function mailFor(client: AuthClient, provider: string, email: string, acceptLanguage?: string): Promise<ParsedMessage> {
  const before = smtp.messages.length
  const csrfToken = await client.csrf()
  const headers = acceptLanguage ? { "accept-language": acceptLanguage } : undefined
  await client.send(`/auth/signin/${provider}`, { form: { csrfToken, email }, ...(headers ? { headers } : {}) })
  return smtp.waitForMessage(before + 1)
}

/** The keys of the English mail texts found in a mail (placeholders match anything). */
function englishIn(mail: ParsedMessage, keys: readonly (keyof Messages)[]): string[] {
  const all = [mail.subject, mail.text, mail.html].join("\n").replace(/&#8203;/g, "")
  return keys.filter((key) => {
    const pattern = en[key]
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]+?")
    return new RegExp(pattern).test(all)
  })
}

const MAGIC_LINK_KEYS = ["magicLink.subject", "magicLink.heading", "magicLink.ignore"] as const
const CODE_KEYS = [
  "emailCode.email.subject",
  "emailCode.email.line",
  "emailCode.email.intro",
  "emailCode.email.expires",
  "emailCode.email.ignore",
] as const

describe("the magic-link mail", () => {
  it("German for Accept-Language de-AT: subject, text and HTML, and the link still signs in", async () => {
    const mail = await mailFor(app(), "nodemailer", "lena@example.test", "de-AT,de;q=0.9")
    expect(mail.subject).toBe(`Bei ${HOST} anmelden`)
    expect(mail.text.startsWith(`Bei ${HOST} anmelden\n${ORIGIN}/auth/callback/nodemailer?`)).toBe(true)
    expect(mail.html).toContain(`>${de["magicLink.button"]}</a>`)
    expect(mail.html).toContain(de["magicLink.ignore"])
    expect(englishIn(mail, [...MAGIC_LINK_KEYS, "magicLink.button"])).toEqual([])
  })

  it("English when the request names no language, as before", async () => {
    const mail = await mailFor(app(), "nodemailer", "liam@example.test")
    expect(mail.subject).toBe(`Sign in to ${HOST}`)
    expect(englishIn(mail, MAGIC_LINK_KEYS)).toEqual([...MAGIC_LINK_KEYS])
  })

  it("the config's pages.locale wins over the request", async () => {
    const mail = await mailFor(app({ locale: "de" }), "nodemailer", "mia@example.test", "en-US")
    expect(mail.subject).toBe(`Bei ${HOST} anmelden`)
  })

  it("a language the app added", async () => {
    const mail = await mailFor(app({ messages: { fr } }), "nodemailer", "noe@example.test", "fr-CH, de;q=0.5")
    expect(mail.subject).toBe(`Connexion à ${HOST}`)
    expect(mail.html).toContain(">Se connecter</a>")
    expect(mail.html).toContain("Si vous n&#39;avez pas demandé cet e-mail")
  })
})

describe("the email code mail", () => {
  it("German for Accept-Language de: subject, text and HTML", async () => {
    const mail = await mailFor(app(), "email-code", "jonas@example.test", "de")
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1] ?? ""
    expect(mail.subject).toBe(`Ihr Anmeldecode für ${HOST}`)
    expect(mail.text).toBe(`Ihr Anmeldecode für ${HOST} lautet ${code}.\nEr ist 10 Minuten lang gültig.\n${de["emailCode.email.ignore"]}\n`)
    expect(mail.html).toContain(`Ihr Anmeldecode für <strong>${HOST}</strong> lautet`)
    expect(englishIn(mail, CODE_KEYS)).toEqual([])
  })

  it("English when the request names no language, as before", async () => {
    const mail = await mailFor(app(), "email-code", "jana@example.test")
    expect(mail.subject).toBe(`Your sign-in code for ${HOST}`)
    expect(englishIn(mail, CODE_KEYS)).toEqual([...CODE_KEYS])
  })
})
