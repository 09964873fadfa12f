/**
 * Step-up in Chromium, on an Express app: a page guarded by `requireRecentAuth` opens at once for a
 * session signed in moments ago (maxAge 600), and asks for a fresh proof for one older than its maxAge
 * (maxAge 2, the session three seconds old): the re-authentication page, the password, and back to the
 * page, which then opens. No second prompt until the proof is old again.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import express from "express"
import { afterAll, beforeAll, expect, it } from "vitest"
import { ExpressAuth, type ExpressAuthConfig, requireRecentAuth } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Passkey from "../src/providers/passkey.js"
import type { AuthConfig } from "../src/index.js"
import { freePort } from "./support/redis-server.js"

const PASSWORD = "correct horse battery staple"
const log = captureLogger()
const config: ExpressAuthConfig = {
  secret: SECRET,
  trustHost: true,
  logger: log.logger,
  providers: [
    Credentials({
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: ({ email, password }) => (password === PASSWORD ? { id: `u-${String(email)}`, email: String(email), name: "Ada" } : null),
    }),
  ],
}

/** Passkeys only: the re-authentication asks for one of the user's own passkeys. */
const passkeyConfig: ExpressAuthConfig = {
  secret: SECRET,
  trustHost: true,
  logger: log.logger,
  adapter: MemoryAdapter(),
  session: { strategy: "jwt" },
  experimental: { enableWebAuthn: true },
  providers: [Passkey({})] as AuthConfig["providers"],
}

let server: Server
let passkeyServer: Server
let base: string
let passkeyBase: string
let browser: Browser

/** An app with the auth routes and a sensitive page (its maxAge from the query, so one test can ask for a fresh and an old session). */
async function serve(cfg: ExpressAuthConfig): Promise<{ server: Server; base: string }> {
  const app = express()
  app.use("/auth", ExpressAuth(cfg))
  app.get("/sensitive", async (req, res, next) => {
    try {
      const check = await requireRecentAuth(req, cfg, { maxAge: Number(req.query.maxAge) }, res)
      if (!check.ok) return void res.redirect(303, check.redirect)
      res.send(
        `<!DOCTYPE html><title>sensitive</title><p id="ok">Hello ${check.session.user?.name ?? check.session.user?.email}, proof at ${check.authTime}</p>`,
      )
    } catch (err) {
      next(err)
    }
  })
  const port = await freePort()
  const listening = app.listen(port, "127.0.0.1")
  await once(listening, "listening")
  return { server: listening, base: `http://localhost:${port}` }
}

beforeAll(async () => {
  ;({ server, base } = await serve(config))
  ;({ server: passkeyServer, base: passkeyBase } = await serve(passkeyConfig))
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  for (const s of [server, passkeyServer]) {
    s?.closeAllConnections()
    await new Promise<void>((resolve) => s?.close(() => resolve()))
  }
})

it("asks for a fresh proof for an old session and not for a fresh one", async () => {
  const page = await browser.context.newPage()
  // signed out: the guarded page sends the browser to sign in, and back
  await page.goto(`${base}/sensitive?maxAge=600`)
  expect(new URL(page.url()).pathname).toBe("/auth/signin")
  await page.fill('input[name="email"]', "ada@example.test")
  await page.fill('input[name="password"]', PASSWORD)
  await page.click("form[action$='/callback/credentials'] button[type=submit]")
  await page.waitForURL(`${base}/sensitive?maxAge=600`)
  const firstProof = await page.textContent("#ok")
  expect(firstProof).toContain("Hello Ada")

  // a fresh session (signed in just now): no prompt
  await page.goto(`${base}/sensitive?maxAge=600`)
  expect(page.url()).toBe(`${base}/sensitive?maxAge=600`)
  expect(await page.textContent("#ok")).toBe(firstProof)

  // the same session, older than a 2-second maxAge: the re-authentication page
  await new Promise((resolve) => setTimeout(resolve, 3000))
  await page.goto(`${base}/sensitive?maxAge=2`)
  expect(new URL(page.url()).pathname).toBe("/auth/reauth")
  expect(await page.textContent("h1")).toBe("Confirm it's you")
  await page.fill('input[name="email"]', "ada@example.test")
  await page.fill('input[name="password"]', "a wrong one")
  await page.click("button[type=submit]")
  expect(await page.textContent("[role=alert]")).toContain("That password is not right.")
  await page.fill('input[name="email"]', "ada@example.test")
  await page.fill('input[name="password"]', PASSWORD)
  await page.click("button[type=submit]")
  await page.waitForURL(`${base}/sensitive?maxAge=2`)
  const secondProof = await page.textContent("#ok")
  expect(secondProof).toContain("Hello Ada")
  // a newer proof time than the sign-in's
  const at = (text: string | null) => Number(/proof at (\d+)/.exec(text ?? "")?.[1])
  expect(at(secondProof)).toBeGreaterThanOrEqual(at(firstProof) + 3)
  await page.close()
}, 60_000)

it("with a passkey: the re-authentication asks for one of the user's own passkeys", async () => {
  // cookies are per host, not per port: the first test's session would sign this one in
  await browser.context.clearCookies()
  const page = await authenticatorTab(browser)
  const at = (text: string | null) => Number(/proof at (\d+)/.exec(text ?? "")?.[1])
  await page.goto(`${passkeyBase}/sensitive?maxAge=600`)
  expect(new URL(page.url()).pathname).toBe("/auth/signin")
  await page.fill("#input-email-for-passkey-provider", "pat@example.test")
  await page.click("text=Register with Passkey")
  await page.waitForURL(`${passkeyBase}/sensitive?maxAge=600`)
  const firstProof = await page.textContent("#ok")
  expect(firstProof).toContain("Hello pat@example.test")

  await new Promise((resolve) => setTimeout(resolve, 3000))
  await page.goto(`${passkeyBase}/sensitive?maxAge=2`)
  expect(new URL(page.url()).pathname).toBe("/auth/reauth")
  await page.click("#reauth-passkey")
  await page.waitForURL(`${passkeyBase}/sensitive?maxAge=2`)
  const secondProof = await page.textContent("#ok")
  expect(at(secondProof)).toBeGreaterThanOrEqual(at(firstProof) + 3)
  await page.close()
}, 60_000)

/** A tab with its own virtual authenticator (a platform passkey), and the CDP session that drives it. */
async function tabWithAuthenticator() {
  const page = await browser.context.newPage()
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = async () => false
  })
  const cdp = await browser.context.newCDPSession(page)
  await cdp.send("WebAuthn.enable", { enableUI: false })
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { page, cdp, authenticatorId }
}

it("another user's passkey cannot refresh my authTime, even with the page's options rewritten to name it", async () => {
  await browser.context.clearCookies()
  // Sam registers a passkey in his own tab; its private key is then copied into Pat's authenticator
  const sam = await tabWithAuthenticator()
  await sam.page.goto(`${passkeyBase}/auth/signin`)
  await sam.page.fill("#input-email-for-passkey-provider", "sam@example.test")
  await sam.page.click("text=Register with Passkey")
  await sam.page.waitForURL((url) => !url.pathname.startsWith("/auth/"))
  const { credentials: samKeys } = await sam.cdp.send("WebAuthn.getCredentials", { authenticatorId: sam.authenticatorId })
  const samKey = samKeys[0] ?? expect.unreachable()
  await sam.page.close()
  await browser.context.clearCookies()

  const pat = await tabWithAuthenticator()
  await pat.page.goto(`${passkeyBase}/sensitive?maxAge=600`)
  await pat.page.fill("#input-email-for-passkey-provider", "pia@example.test")
  await pat.page.click("text=Register with Passkey")
  await pat.page.waitForURL(`${passkeyBase}/sensitive?maxAge=600`)
  const firstProof = await pat.page.textContent("#ok")

  await new Promise((resolve) => setTimeout(resolve, 3000))
  await pat.page.goto(`${passkeyBase}/sensitive?maxAge=2`)
  expect(new URL(pat.page.url()).pathname).toBe("/auth/reauth")
  // Pat's authenticator now holds only Sam's key, and the options on the page name Sam's credential
  const { credentials: patKeys } = await pat.cdp.send("WebAuthn.getCredentials", { authenticatorId: pat.authenticatorId })
  for (const key of patKeys) {
    await pat.cdp.send("WebAuthn.removeCredential", { authenticatorId: pat.authenticatorId, credentialId: key.credentialId })
  }
  await pat.cdp.send("WebAuthn.addCredential", { authenticatorId: pat.authenticatorId, credential: samKey })
  await pat.page.evaluate((id) => {
    const button = document.getElementById("reauth-passkey") as HTMLButtonElement
    const options = JSON.parse(button.dataset.options ?? "{}")
    options.allowCredentials = [{ id, type: "public-key" }]
    button.dataset.options = JSON.stringify(options)
  }, samKey.credentialId)
  await pat.page.click("#reauth-passkey")
  await pat.page.waitForLoadState("load")
  expect(new URL(pat.page.url()).pathname).toBe("/auth/reauth")
  expect(await pat.page.textContent("[role=alert]")).toContain("That passkey could not confirm it is you.")

  // the guarded page still asks; Pat's proof time is the sign-in's
  await pat.page.goto(`${passkeyBase}/sensitive?maxAge=600`)
  expect(await pat.page.textContent("#ok")).toBe(firstProof)
  await pat.page.close()
}, 60_000)
