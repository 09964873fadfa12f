/**
 * User verification per provider, in Chromium with a virtual security key that cannot verify its user
 * and keeps no discoverable credential (so sign-in names the user by email, and the options list the
 * user's keys): plain `WebAuthn()` accepts its responses; a provider that requires user verification
 * refuses the very same response (`WebAuthnVerificationError`).
 */
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { afterAll, beforeAll, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { Auth } from "../src/index.js"
import { ExpressAuth, type ExpressAuthConfig } from "../src/integration/express.js"
import WebAuthn from "../src/providers/webauthn.js"
import type { WebAuthnUserConfig } from "../src/providers/webauthn-types.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"

const adapter = MemoryAdapter()
const log = captureLogger()
let server: Server
let browser: Browser
let base: string

const config = (options: WebAuthnUserConfig = {}): ExpressAuthConfig => ({
  secret: SECRET,
  trustHost: true,
  logger: log.logger,
  adapter,
  experimental: { enableWebAuthn: true },
  providers: [WebAuthn(options)],
})

beforeAll(async () => {
  const app = express()
  app.use("/auth", ExpressAuth(config()))
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

it("WebAuthn() accepts an authenticator without user verification; a provider requiring it refuses", async () => {
  const page = await authenticatorTab(browser, { kind: "security-key" })
  await page.goto(`${base}/auth/signin`)
  await page.fill("#input-email-for-webauthn-provider", "key@example.test")
  await page.click("text=Register with WebAuthn")
  await page.waitForURL(`${base}/`)
  expect(await (await page.context().request.get(`${base}/auth/session`)).json()).toMatchObject({ user: { email: "key@example.test" } })

  await page.context().clearCookies()
  await page.goto(`${base}/auth/signin`)
  const posted = new Promise<string>((resolve) => {
    void page.route("**/auth/callback/webauthn", async (route) => {
      resolve(route.request().postData() ?? "")
      await route.abort()
    })
  })
  // a security key keeps no discoverable credential: the email field names whose keys may answer
  await page.fill("#input-email-for-webauthn-provider", "key@example.test")
  await page.click("text=Sign in with WebAuthn")
  const body = await posted
  const cookie = (await page.context().cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ")
  const send = (options: WebAuthnUserConfig) =>
    Auth(
      new Request(`${base}/auth/callback/webauthn`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body,
      }),
      config(options),
    )
  const strict = await send({ verifyAuthenticationOptions: { requireUserVerification: true } })
  expect(strict.headers.get("location")).toBe(`${base}/auth/error?error=WebAuthnVerificationError`)
  expect(String((log.errors.at(-1)?.cause as { err?: Error } | undefined)?.err?.message)).toContain("User verification required")
  const lenient = await send({})
  expect(lenient.headers.get("location")).toBe(base)
  expect(lenient.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  await page.close()
}, 60_000)
