/**
 * Every built-in page in German, as Chromium shows it to a person whose browser asks for `de-AT`: the
 * sign-in page (plain and with each `?error=` message), sign-out, "check your email", the error page per
 * code, the TOTP step with its recovery-code section (and its wrong-code message and attempts left),
 * the email code page (and its wrong-code message), the passkey form's messages, the second-factor
 * pages (list, TOTP enrolment, recovery codes, a refusal) and the re-authentication page. Each page is
 * screenshotted (a PNG under a temporary directory) and its visible text (title, text, placeholders)
 * holds no text of the English catalogue; `<html lang="de">`. The mails the browser's requests sent
 * are German too.
 */
import { once } from "node:events"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import type { Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import express from "express"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import { ExpressAuth, type ExpressAuthConfig } from "../src/integration/express.js"
import { de, en } from "../src/messages/index.js"
import Credentials from "../src/providers/credentials.js"
import EmailCode from "../src/providers/email-code/index.js"
import Nodemailer from "../src/providers/nodemailer.js"
import Passkey from "../src/providers/passkey.js"
import { recoveryCodeStep } from "../src/steps/recovery-codes.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { freePort } from "./support/redis-server.js"
import { type SmtpCapture, startSmtp } from "./support/smtp.js"

const PASSWORD = "richtig pferd batterie heftklammer"
const ADA = "ada@example.test"
/** Signs in with a password only, and sets up her factors on the pages. */
const BEA = "bea@example.test"
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const ACCEPT_LANGUAGE = "de-AT,de;q=0.9,en;q=0.5"

/**
 * The English catalogue's texts as patterns (a placeholder matches any text), but for the words German
 * uses as they are ("Passkey").
 */
const englishTexts = Object.entries(en)
  .filter(([key, value]) => de[key as keyof typeof de] !== value)
  .map(([key, value]) => {
    const pattern = value
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]+?")
    const words = value
      .replace(/\{\w+\}/g, " ")
      .trim()
      .split(/\s+/)
      .filter(Boolean).length
    return { key, words, anywhere: new RegExp(pattern), whole: new RegExp(`^${pattern}$`) }
  })

/** What a person reads on the page: the title, every text node, every placeholder. */
async function visibleTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out = [document.title]
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement
      const shown = parent && !parent.closest("[hidden]") && getComputedStyle(parent).display !== "none"
      const text = node.textContent?.trim()
      if (shown && text) out.push(text)
    }
    for (const el of document.querySelectorAll("[placeholder]")) out.push(el.getAttribute("placeholder") ?? "")
    return out
  })
}

/**
 * The keys of the English texts on the page: a text of two words or more anywhere in what it shows, a
 * one-word text ("Code", "Error") as a whole text of its own (German shares words such as "Code").
 */
function englishOn(texts: readonly string[]): string[] {
  const all = texts.join("\n")
  return englishTexts
    .filter(({ words, anywhere, whole }) => (words >= 2 ? anywhere.test(all) : texts.some((t) => whole.test(t))))
    .map(({ key }) => key)
}

let shots: string
let browser: Browser
let smtp: SmtpCapture
let server: Server
let base: string
const log = captureLogger()

beforeAll(async () => {
  shots = await mkdtemp(join(tmpdir(), "authchart-german-pages-"))
  const [mailbox, port, launched] = await Promise.all([startSmtp(), freePort(), launchBrowser()])
  smtp = mailbox
  browser = launched
  base = `http://localhost:${port}`
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    logger: log.logger,
    experimental: { enableWebAuthn: true },
    // the app's own names and labels are the app's to translate
    providers: [
      Credentials({
        name: "Passwort",
        credentials: { email: { label: "E-Mail", type: "email" }, password: { label: "Passwort", type: "password" } },
        authorize: (input) =>
          [ADA, BEA].includes(String(input.email)) && input.password === PASSWORD
            ? { id: `u-${input.email}`, email: String(input.email) }
            : null,
      }),
      Nodemailer({ name: "E-Mail-Link", server: smtp.url, from: "seiten@example.test" }),
      EmailCode({ name: "E-Mail-Code", server: smtp.url, from: "seiten@example.test" }),
      Passkey({}),
      // its button only: the page does not ask the issuer
      { id: "idp", name: "Firmenkonto", type: "oidc", issuer: "https://idp.invalid", clientId: "seiten", clientSecret: "geheim" },
    ] as AuthConfig["providers"],
    flows: [extendFlow(credentialsFlow, [recoveryCodeStep(totpStep({ secretFor: (user) => (user.email === ADA ? TOTP_SECRET : null) }))])],
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  server = app.listen(port, "127.0.0.1")
  await once(server, "listening")
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  await smtp?.stop()
  if (!process.env.KEEP_SCREENSHOTS) await rm(shots, { recursive: true, force: true })
})

/** A German-speaking person's tab: every request asks for `de-AT`. */
async function germanTab(withAuthenticator = false): Promise<Page> {
  await browser.context.clearCookies()
  const page = withAuthenticator ? await authenticatorTab(browser) : await browser.context.newPage()
  await page.setExtraHTTPHeaders({ "Accept-Language": ACCEPT_LANGUAGE })
  return page
}

/** Screenshots the page as `name`.png, checks the file is a PNG with content, and that no English is shown. */
async function checkGerman(page: Page, name: string): Promise<string[]> {
  const path = join(shots, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  const png = await readFile(path)
  expect(png.subarray(0, 8).toString("hex"), name).toBe("89504e470d0a1a0a")
  expect(png.length, name).toBeGreaterThan(2_000)
  expect(await page.evaluate(() => document.documentElement.lang), name).toBe("de")
  const texts = await visibleTexts(page)
  expect(englishOn(texts), `${name}: ${texts.join(" | ")}`).toEqual([])
  return texts
}

describe("the built-in pages in German, from Accept-Language", () => {
  it("the check finds English: the English sign-in page fails it", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    await page.goto(`${base}/auth/signin?error=CredentialsSignin`)
    const found = englishOn(await visibleTexts(page))
    expect(found).toEqual(expect.arrayContaining(["signin.title", "signin.error.CredentialsSignin", "signin.labelFor"]))
    await page.close()
  }, 60_000)

  it("the sign-in page, with every error message", async () => {
    const page = await germanTab()
    await page.goto(`${base}/auth/signin`)
    const texts = await checkGerman(page, "signin")
    expect(texts).toEqual(
      expect.arrayContaining([
        "Anmelden",
        "Mit Passwort anmelden",
        "Mit E-Mail-Link anmelden",
        "Mit Firmenkonto anmelden",
        "Mit Passkey registrieren",
        "E-Mail für die Anmeldung mit Passwort",
        "E-Mail für den Anmeldelink",
        "E-Mail für Ihren Passkey",
        de["signin.email.placeholder"],
      ]),
    )
    const codes = Object.keys(en)
      .filter((key) => /^signin\.error\.\w+$/.test(key) && key !== "signin.error.default")
      .map((key) => key.slice("signin.error.".length))
    for (const code of [...codes, "SomethingElse"]) {
      await page.goto(`${base}/auth/signin?error=${code}`)
      const alert = await page.locator('.error[role="alert"]').textContent()
      expect(alert, code).toBe(code === "SomethingElse" ? de["signin.error.default"] : de[`signin.error.${code}` as keyof typeof de])
      await checkGerman(page, `signin-${code}`)
    }
    await page.goto(`${base}/auth/signin?error=RateLimited&retryIn=3`)
    expect(await page.locator('.error[role="alert"]').textContent()).toBe("Zu viele Versuche. Bitte versuchen Sie es in 3 Minuten erneut.")
    await checkGerman(page, "signin-retry-in")
    await page.close()
  }, 120_000)

  it("sign-out, the error page per code, and 'check your email' with its German mail", async () => {
    const page = await germanTab()
    await page.goto(`${base}/auth/signout`)
    expect(await checkGerman(page, "signout")).toEqual(expect.arrayContaining(["Möchten Sie sich wirklich abmelden?"]))
    const headings: Record<string, string> = {
      Configuration: "Serverfehler",
      AccessDenied: "Zugriff verweigert",
      Verification: "Anmeldung nicht möglich",
      Default: "Fehler",
    }
    for (const [code, heading] of Object.entries(headings)) {
      await page.goto(`${base}/auth/error?error=${code}`)
      expect(await page.locator("h1").textContent(), code).toBe(heading)
      await checkGerman(page, `error-${code}`)
    }
    const before = smtp.messages.length
    await page.goto(`${base}/auth/signin`)
    await page.fill("#input-email-for-nodemailer-provider", "lena@example.test")
    await page.click("text=Mit E-Mail-Link anmelden")
    await page.waitForURL(`${base}/auth/verify-request**`)
    expect(await checkGerman(page, "verify-request")).toEqual(expect.arrayContaining([de["verifyRequest.sent"]]))
    const mail = await smtp.waitForMessage(before + 1)
    expect(mail.subject).toBe(`Bei localhost:${new URL(base).port} anmelden`)
    expect(englishOn([mail.subject, mail.text, mail.html])).toEqual([])
    expect(mail.html).toContain(`>${de["magicLink.button"]}</a>`)
    await page.close()
  }, 60_000)

  it("the TOTP step: its page, a wrong code's message and the attempts left", async () => {
    const page = await germanTab()
    await page.goto(`${base}/auth/signin`)
    await page.fill("#input-email-for-credentials-provider", ADA)
    await page.fill("#input-password-for-credentials-provider", PASSWORD)
    await page.click("text=Mit Passwort anmelden")
    await page.locator("#totp-code").waitFor()
    await page.click("details.recovery-code summary")
    expect(await checkGerman(page, "totp")).toEqual(
      expect.arrayContaining([
        "Bestätigungscode eingeben",
        "Bestätigungscode",
        "Abbrechen und neu beginnen",
        de["recoveryCode.lost"],
        de["recoveryCode.label"],
      ]),
    )
    const wrong = totpCode(TOTP_SECRET) === "000000" ? "111111" : "000000"
    await page.fill("#totp-code", wrong)
    await page.click("text=Bestätigen")
    await page.locator('.error[role="alert"]').waitFor()
    expect(await checkGerman(page, "totp-wrong")).toEqual(expect.arrayContaining([de["totp.invalid"], "Noch 4 Versuche."]))
    await page.close()
  }, 60_000)

  it("the email code page, a wrong code's message, and the German code mail", async () => {
    const page = await germanTab()
    const before = smtp.messages.length
    await page.goto(`${base}/auth/signin`)
    await page.fill("#input-email-for-email-code-provider", "jonas@example.test")
    await page.click("text=Mit E-Mail-Code anmelden")
    await page.locator("#email-code").waitFor()
    expect(await checkGerman(page, "email-code")).toEqual(
      expect.arrayContaining(["Sehen Sie in Ihrem Postfach nach", "jonas@example.test", "Einmalcode"]),
    )
    const mail = await smtp.waitForMessage(before + 1)
    expect(mail.subject).toBe(`Ihr Anmeldecode für localhost:${new URL(base).port}`)
    expect(englishOn([mail.subject, mail.text, mail.html])).toEqual([])
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1] ?? ""
    await page.fill("#email-code", code === "000000" ? "111111" : "000000")
    await page.click('button:has-text("Anmelden")')
    await page.locator('.error[role="alert"]').waitFor()
    expect(await checkGerman(page, "email-code-wrong")).toEqual(
      expect.arrayContaining(["Dieser Code ist nicht richtig. Verbleibende Versuche: 4."]),
    )
    await page.close()
  }, 60_000)

  it("the passkey form's messages", async () => {
    const page = await germanTab(true)
    const status = page.locator("form#passkey-form [data-webauthn-status]")
    await page.goto(`${base}/auth/signin`)
    await page.fill("#input-email-for-passkey-provider", "niemand@example.test")
    await page.click("text=Mit Passkey anmelden")
    await expect.poll(() => status.textContent()).toBe(de["webauthn.noPasskey"])
    await checkGerman(page, "passkey-no-passkey")
    await page.goto(`${base}/auth/signin`)
    await page.click("text=Mit Passkey anmelden")
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe(de["webauthn.cancelled"])
    await checkGerman(page, "passkey-cancelled")
    await page.close()
  }, 60_000)

  it("the second-factor pages and the re-authentication", async () => {
    const page = await germanTab()
    await page.goto(`${base}/auth/signin`)
    await page.fill("#input-email-for-credentials-provider", BEA)
    await page.fill("#input-password-for-credentials-provider", PASSWORD)
    await page.click("text=Mit Passwort anmelden")
    await page.waitForURL((url) => !url.pathname.startsWith("/auth/"))
    await page.goto(`${base}/auth/factors`)
    expect(await checkGerman(page, "factors")).toEqual(
      expect.arrayContaining(["Anmeldung und Sicherheit", "Aus", "Keine Passkeys.", "Noch 0 Wiederherstellungscodes"]),
    )
    await page.click("#totp-enrol")
    await page.locator("#totp-secret").waitFor()
    await checkGerman(page, "factors-enrol")
    const secret = (await page.textContent("#totp-secret"))?.trim() ?? ""
    await page.fill("#totp-code", totpCode(secret) === "000000" ? "111111" : "000000")
    await page.click("#totp-confirm")
    await page.locator('.error[role="alert"]').waitFor()
    expect(await checkGerman(page, "factors-enrol-wrong")).toEqual(expect.arrayContaining([de["factors.refused.InvalidCode"]]))
    await page.fill("#totp-code", totpCode(secret))
    await page.click("#totp-confirm")
    await page.locator("#recovery-codes").waitFor()
    expect(await checkGerman(page, "factors-codes")).toEqual(expect.arrayContaining([de["factors.codes.enrolled"]]))
    await page.click("#factors-link")
    await page.locator("#totp-remove").waitFor()
    expect(await checkGerman(page, "factors-on")).toEqual(expect.arrayContaining(["Aktiv", "Noch 10 Wiederherstellungscodes"]))

    await page.goto(`${base}/auth/reauth?${new URLSearchParams({ callbackUrl: `${base}/auth/factors` })}`)
    await page.locator("#reauth-password").waitFor()
    expect(await checkGerman(page, "reauth")).toEqual(expect.arrayContaining([de["reauth.title"], de["reauth.hint"]]))
    await page.fill("#reauth-password", "falsch")
    await page.click('button:has-text("Bestätigen")')
    await page.locator('.error[role="alert"]').waitFor()
    expect(await checkGerman(page, "reauth-wrong")).toEqual(expect.arrayContaining([de["reauth.wrongPassword"]]))
    await page.close()
  }, 60_000)
})
