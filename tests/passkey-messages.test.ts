/**
 * What the passkey form says when it cannot go on, in Chromium with a virtual
 * authenticator on the built-in sign-in page: registering, signed out, with the email of an existing
 * account says so and what to do (and the server logs it once as `AccountNotLinked`); signing in with an
 * email that has no passkey says so, instead of "cancelled or timed out". Also: the start-up warning of
 * the experimental feature is a sentence, not a bare code.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Auth } from "../src/index.js"
import Passkey from "../src/providers/passkey.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { SECRET } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { type PagesApp, startPagesApp } from "./support/pages-app.js"

const EMAIL_FIELD = "#input-email-for-passkey-provider"
const STATUS = "form#passkey-form [data-webauthn-status]"

describe("passkey messages in Chromium", () => {
  let app: PagesApp
  let browser: Browser
  beforeAll(async () => {
    app = await startPagesApp()
    browser = await launchBrowser()
    await app.adapter.createUser({ id: "u-known", email: "known@example.test", emailVerified: null })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  /** A fresh browser (no cookies) with a virtual authenticator, on the sign-in page. */
  async function signInPage(): Promise<Page> {
    await browser.context.clearCookies()
    const page = await authenticatorTab(browser)
    await page.goto(`${app.base}/auth/signin`)
    return page
  }

  it("registering with the email of an existing account: what happened and what to do; logged once as AccountNotLinked", async () => {
    const errorsBefore = app.log.errors.length
    const page = await signInPage()
    await page.fill(EMAIL_FIELD, "known@example.test")
    await page.click("text=Register with Passkey")
    const status = page.locator(STATUS)
    await expect
      .poll(() => status.textContent())
      .toBe("This email address already has an account. Sign in to it first (with its passkey or another way), then add a passkey.")
    expect(await status.isVisible()).toBe(true)
    expect(page.url()).toBe(`${app.base}/auth/signin`)
    const logged = app.log.errors.slice(errorsBefore)
    expect(logged.map((e) => (e as { type?: string }).type)).toEqual(["AccountNotLinked"])
    expect(logged[0]?.message).not.toContain("known@example.test")
    await page.close()
  }, 60_000)

  it("signing in with an email that has no passkey says so, not 'cancelled or timed out'", async () => {
    const page = await signInPage()
    for (const email of ["known@example.test", "nobody@example.test"]) {
      await page.fill(EMAIL_FIELD, email)
      await page.click("text=Sign in with Passkey")
      const status = page.locator(STATUS)
      await expect
        .poll(() => status.textContent(), { message: email })
        .toBe("No passkey is registered for this email address. Register one, or sign in another way.")
      await page.evaluate((selector) => {
        const el = document.querySelector(selector) as HTMLElement
        el.textContent = ""
        el.hidden = true
      }, STATUS)
    }
    await page.close()
  }, 60_000)

  it("signing in without an email and without a passkey on the device: no passkey was used, and why it may be", async () => {
    const page = await signInPage()
    await page.click("text=Sign in with Passkey")
    await expect
      .poll(() => page.locator(STATUS).textContent(), { timeout: 20_000 })
      .toBe("No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site.")
    await page.close()
  }, 60_000)
})

describe("the experimental-feature warning", () => {
  it("is printed once at start-up as a sentence after its code", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    try {
      const config = {
        secret: SECRET,
        trustHost: true,
        adapter: MemoryAdapter(),
        experimental: { enableWebAuthn: true },
        providers: [Passkey({})],
      }
      await Auth(new Request("http://app.test/auth/providers"), config)
      await Auth(new Request("http://app.test/auth/providers"), config)
      const lines = warn.mock.calls.map((args) => String(args[0])).filter((l) => l.includes("[auth][warn][experimental-webauthn]"))
      expect(lines).toHaveLength(1)
      const text = (lines[0] as string)
        .split("[auth][warn][experimental-webauthn]")[1]
        ?.replace(/\x1b\[[0-9;]*m/g, "")
        .trim()
      expect(text).toMatch(/^WebAuthn \(passkeys\) is experimental/)
    } finally {
      warn.mockRestore()
    }
  })
})
