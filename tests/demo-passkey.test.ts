/**
 * Passkeys in the demo app, in Chromium with a CDP virtual authenticator: register from the sign-in
 * page, see the protected page, sign out, sign in with the passkey. The demo listens on 127.0.0.1 and
 * the browser uses http://localhost:<port> (a passkey's RP ID must be a domain name).
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { type RunningDemo, start } from "../demo/server.js"
import { captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"

let demo: RunningDemo
let browser: Browser
let origin: string
const log = captureLogger()

beforeAll(async () => {
  demo = await start(0, { host: "127.0.0.1", env: {}, log: () => {}, logger: log.logger })
  origin = demo.url.replace("127.0.0.1", "localhost")
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await demo?.stop()
})

it("register a passkey → protected page → sign out → sign in with the passkey", async () => {
  // no passkey autofill here (webauthn.test.ts covers it)
  const page = await authenticatorTab(browser)
  await page.goto(`${origin}/protected`)
  expect(page.url()).toBe(`${origin}/auth/signin?callbackUrl=%2Fprotected`)
  await page.fill("#input-email-for-passkey-provider", "pat@example.test")
  await page.click("text=Register with Passkey")
  await page.waitForURL(`${origin}/protected`)
  expect(await page.textContent("body")).toContain("Signed in as pat@example.test")

  await page.goto(`${origin}/auth/signout`)
  await page.click("button")
  await page.waitForURL(`${origin}/auth/signin?callbackUrl=%2Fprotected`)
  expect(await page.textContent("body")).not.toContain("Signed in as")
  await page.click("text=Sign in with Passkey")
  await page.waitForURL(`${origin}/protected`)
  expect(await page.textContent("body")).toContain("Signed in as pat@example.test")
  expect(log.errors).toEqual([])
}, 60_000)
