/**
 * Passkeys in the demo app, in Chromium with a CDP virtual authenticator: register from the sign-in
 * page, see the protected page, sign out, sign in with the passkey. The demo listens on 127.0.0.1 and
 * the browser uses http://localhost:<port> (a passkey's RP ID must be a domain name). Then the
 * inspector, opened from the home page's link, as a developer sees it.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { DEMO_PASSWORD, DEMO_TOTP_USER, type RunningDemo, start } from "../demo/server.js"
import { captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { Person, forms } from "./support/demo-person.js"

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

it("the home page's Inspector link opens the inspector: every flow drawn offline, sign-ins listed, a resting two-step flow highlighted", async () => {
  const page = await browser.context.newPage()
  const errors: string[] = []
  page.on("pageerror", (err) => errors.push(err.message))
  await page.goto(`${origin}/`)
  await page.click("text=Inspector")
  await page.waitForURL(`${origin}/auth/__inspect`)
  for (const flow of ["credentials", "oauth", "email", "webauthn"]) {
    await page.locator(`article.diagram[data-flow="${flow}"][data-rendered="true"] svg`).waitFor({ timeout: 20_000 })
  }
  // the credentials flow carries the demo's TOTP step
  const credentialsStates = await page
    .locator('article.diagram[data-flow="credentials"] svg g.node')
    .evaluateAll((nodes) => nodes.map((n) => n.textContent?.trim()))
  expect(credentialsStates).toEqual(expect.arrayContaining(["idle", "entering", "waiting", "checking", "issuing"]))
  await page.locator('.flow-item[data-flow="webauthn"][data-status="done"]').first().waitFor()

  // the two-step user's password is accepted: the flow rests in the TOTP step, highlighted inside its box
  const person = new Person(demo.url)
  const { response } = await person.follow(await person.visit("/protected"))
  const [form] = forms(await response.text()).filter((f) => "password" in f.fields)
  const asked = await person.visit(form?.action ?? "", { ...form?.fields, email: DEMO_TOTP_USER.email, password: DEMO_PASSWORD })
  expect(asked.status).toBe(200)
  await page.locator('.flow-item[data-flow="credentials"][data-status="resting"]').click()
  const credentials = page.locator('article.diagram[data-flow="credentials"]')
  await expect.poll(() => credentials.getAttribute("data-current")).toBe("totp.waiting")
  await expect.poll(() => credentials.locator("g.node.current").textContent()).toBe("waiting")
  expect(errors).toEqual([])
  await page.close()
}, 60_000)
