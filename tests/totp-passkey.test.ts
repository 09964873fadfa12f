/**
 * The TOTP step after passkey sign-in, in Chromium: register a passkey on the built-in sign-in page,
 * land on the TOTP page instead of a session, type the code, signed in.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { afterAll, beforeAll, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { extendFlow, webauthnFlow } from "../src/index.js"
import { ExpressAuth } from "../src/integration/express.js"
import Passkey from "../src/providers/passkey.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { SECRET } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"

const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
let server: Server
let base: string
let browser: Browser

beforeAll(async () => {
  const app = express()
  app.use(
    "/auth",
    ExpressAuth({
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      logger: { warn: () => {} },
      providers: [Passkey()],
      flows: [extendFlow(webauthnFlow, [totpStep({ secretFor: () => TOTP_SECRET })])],
    }),
  )
  app.get("/", (_req, res) => void res.send("<p>home</p>"))
  server = app.listen(0, "127.0.0.1")
  await once(server, "listening")
  base = `http://localhost:${(server.address() as AddressInfo).port}`
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  server?.close()
})

it("a passkey sign-in asks for the TOTP code before the session is issued", async () => {
  const page = await authenticatorTab(browser)
  await page.goto(`${base}/auth/signin`)
  await page.fill("#input-email-for-passkey-provider", "totp@example.test")
  await page.click("text=Register with Passkey")
  await page.waitForSelector('input[name="code"]', { timeout: 15_000 })
  expect(await (await page.context().request.get(`${base}/auth/session`)).json()).toBeNull()
  await page.fill('input[name="code"]', totpCode(TOTP_SECRET))
  await page.click("button[type=submit]")
  await page.waitForURL(`${base}/`)
  const session = (await (await page.context().request.get(`${base}/auth/session`)).json()) as { user: { email: string } }
  expect(session.user.email).toBe("totp@example.test")
}, 60_000)
