/**
 * The built-in pages as a person sees them in Chromium: the sign-in card keeps its
 * width when an error shows (and a step page's card has the same width); on a page with credentials,
 * email and passkeys the three email fields are labelled by method; cancelling at the provider says
 * so instead of "Try signing in with a different account"; the sign-out page's heading reads
 * "Sign out"; long links stay inside the demo mailbox page.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningDemo, start } from "../demo/server.js"
import { AuthClient, captureLogger } from "./helpers.js"
import { type Browser, launchBrowser } from "./support/browser.js"
import { type PagesApp, TOTP_USERS, startPagesApp, submitCredentials } from "./support/pages-app.js"

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const cardWidth = (page: Page): Promise<number> => page.locator(".card").evaluate((el) => el.getBoundingClientRect().width)

describe("the sign-in page and its neighbours", () => {
  let app: PagesApp
  beforeAll(async () => {
    app = await startPagesApp()
  })
  afterAll(() => app?.stop())

  it("the card keeps its width when an error shows, and a step page's card is as wide", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    await page.goto(`${app.base}/auth/signin`)
    const plain = await cardWidth(page)
    const widths: Record<string, number> = {}
    for (const error of ["OAuthCallbackError", "CredentialsSignin", "FlowStateError", "OAuthAccountNotLinked"]) {
      await page.goto(`${app.base}/auth/signin?error=${error}`)
      await page.locator('.error[role="alert"]').waitFor()
      widths[error] = await cardWidth(page)
    }
    expect(widths).toEqual(Object.fromEntries(Object.keys(widths).map((k) => [k, plain])))
    await page.goto(`${app.base}/auth/signout`)
    expect(await cardWidth(page)).toBe(plain)
    // the TOTP step
    await submitCredentials(page, app.base, TOTP_USERS[0])
    await page.locator("#totp-code").waitFor()
    expect(await cardWidth(page)).toBe(plain)
    await page.close()
  }, 60_000)

  it("credentials, email and passkeys on one page: each email field is labelled by its method", async () => {
    const page = await browser.context.newPage()
    await page.goto(`${app.base}/auth/signin`)
    const labels = await page.locator("label").allTextContents()
    expect(labels.filter((l) => /email/i.test(l))).toEqual([
      "Email for password sign-in",
      "Email for a sign-in link",
      "Email for your passkey",
    ])
    expect(await page.getByLabel("Email for a sign-in link").getAttribute("name")).toBe("email")
    expect(await page.getByLabel("Email for your passkey").getAttribute("autocomplete")).toBe("username webauthn")
    expect(labels).toContain("Password")
    await page.close()
  }, 60_000)

  it("cancelling at the provider: the sign-in page says the provider did not complete it, not 'a different account'", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    const errorsBefore = app.log.errors.length
    await page.goto(`${app.base}/auth/signin`)
    await page.click("text=Sign in with IdP")
    await page.waitForURL(`${app.idp.issuer}/interaction/**`)
    await page.click('button[value="deny"]')
    await page.waitForURL(`${app.base}/auth/signin?error=OAuthCallbackError`)
    const alert = await page.locator('.error[role="alert"]').textContent()
    expect(alert).toBe(
      "The provider did not complete the sign-in: it was cancelled or refused there. Try again, or choose another way to sign in.",
    )
    expect(await page.textContent("body")).not.toContain("different account")
    expect(app.log.errors.slice(errorsBefore).map((e) => (e as { type?: string }).type)).toEqual(["OAuthCallbackError"])
    await page.close()
  }, 60_000)

  it("the sign-out page's heading reads 'Sign out'", async () => {
    const res = await new AuthClient(app.config, app.base).send("/auth/signout")
    expect(await res.text()).toContain("<h1>Sign out</h1>")
  })
})

describe("the demo mailbox", () => {
  let demo: RunningDemo
  beforeAll(async () => {
    demo = await start(0, { host: "127.0.0.1", env: {}, log: () => {}, logger: captureLogger().logger })
  })
  afterAll(() => demo?.stop())

  it("keeps a long sign-in link inside the page, at a phone's width too", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    await page.goto(`${demo.url}/auth/signin?callbackUrl=${encodeURIComponent(`/protected?from=${"x".repeat(120)}`)}`)
    await page.locator('form:has-text("Sign in with Email") input[name="email"]').fill("long-link@example.test")
    await page.click("text=Sign in with Email")
    await page.waitForURL(`${demo.url}/auth/verify-request**`)
    for (const width of [1024, 375]) {
      await page.setViewportSize({ width, height: 800 })
      await page.goto(`${demo.url}/dev/mailbox`)
      const link = page.locator("ol.mailbox a").first()
      expect(await link.textContent()).toContain("/auth/callback/")
      const overflow = await link.evaluate(
        (a) => a.getBoundingClientRect().right - (a.closest("body") as HTMLElement).getBoundingClientRect().right,
      )
      expect(overflow, `at ${width}px`).toBeLessThanOrEqual(0)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    }
    await page.close()
  }, 60_000)
})
