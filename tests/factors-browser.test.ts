/**
 * The second-factor pages as a person uses them in Chromium, on two instances of an Express app that
 * share one adapter and one Redis server-state port (tests/support/redis-server.ts):
 * - enrol TOTP from the account page (the "scan" reads the secret the page shows; the code comes from
 *   the test's own TOTP), sign out, sign in with TOTP; lose the device, sign in with a recovery code,
 *   and the same code is refused on the second instance;
 * - delete a passkey from the page (the last way to sign in: only after the warning), and it can no
 *   longer sign in;
 * - a proof gone stale sends the user through the re-authentication (stepup's `<basePath>/reauth`) and
 *   back to the page, where the action then goes through.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import express from "express"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CompleteAdapter, MemoryAdapter } from "../src/adapters/memory.js"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import { ExpressAuth, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import Passkey from "../src/providers/passkey.js"
import { recoveryCodeStep } from "../src/steps/recovery-codes.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { RedisServerState } from "../src/stores/redis-server-state.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { type RedisServer, connectClient, freePort, startRedis } from "./support/redis-server.js"

const PASSWORD = "correct horse battery staple"

interface Instance {
  readonly base: string
  stop(): Promise<void>
}

async function startInstance(
  adapter: CompleteAdapter,
  redisUrl: string,
  log: ReturnType<typeof captureLogger>,
  extra: Partial<ExpressAuthConfig> = {},
): Promise<Instance> {
  const port = await freePort()
  const client = await connectClient(redisUrl)
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    serverState: RedisServerState(client),
    session: { strategy: "jwt" },
    logger: log.logger,
    experimental: { enableWebAuthn: true },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        authorize: ({ email, password }) => (password === PASSWORD ? { id: `u-${String(email)}`, email: String(email) } : null),
      }),
      Passkey({}),
    ] as AuthConfig["providers"],
    flows: [extendFlow(credentialsFlow, [recoveryCodeStep(totpStep())])],
    ...extra,
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.get("/home", (_req, res) => void res.send("<!DOCTYPE html><title>home</title><p>home</p>"))
  const server: Server = app.listen(port, "127.0.0.1")
  await once(server, "listening")
  return {
    base: `http://localhost:${port}`,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      client.destroy()
    },
  }
}

let browser: Browser
let redis: RedisServer
let one: Instance
let two: Instance
/** An instance whose fresh proof lasts {@link STRICT_FRESH_FOR} seconds, to see one go stale. */
let strict: Instance
const STRICT_FRESH_FOR = 5
const log = captureLogger()

beforeAll(async () => {
  redis = await startRedis()
  const adapter = MemoryAdapter()
  ;[one, two, strict] = await Promise.all([
    startInstance(adapter, redis.url, log),
    startInstance(adapter, redis.url, log),
    startInstance(adapter, redis.url, log, { factors: { freshFor: STRICT_FRESH_FOR } }),
  ])
  browser = await launchBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await Promise.all([one?.stop(), two?.stop(), strict?.stop()])
  await redis?.stop()
})

const home = (base: string) => `${base}/home`
const leftAuth = (url: URL) => url.pathname === "/home"

/** The sign-in page's password form for `email`, sent. */
async function password(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/auth/signin?${new URLSearchParams({ callbackUrl: home(base) })}`)
  await page.fill("#input-email-for-credentials-provider", email)
  await page.fill("#input-password-for-credentials-provider", PASSWORD)
  await page.click("text=Sign in with Credentials")
}

async function signOut(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/auth/signout`)
  await page.click("#submitButton")
  await page.waitForURL((url) => !url.pathname.endsWith("/signout"))
}

async function sessionEmail(page: Page, base: string): Promise<string | undefined> {
  const session = (await (await page.context().request.get(`${base}/auth/session`)).json()) as { user?: { email?: string } } | null
  return session?.user?.email
}

describe("the account page in Chromium", () => {
  it("enrol TOTP → sign out → sign in with TOTP → lose the device → a recovery code → refused on the second instance", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    const email = "ada@example.test"
    await password(page, one.base, email)
    await page.waitForURL(leftAuth)

    await page.goto(`${one.base}/auth/factors`)
    expect(await page.textContent("#totp-status")).toBe("Off")
    await page.click("#totp-enrol")
    await page.locator(".qr svg").waitFor()
    // the scan: what the page shows as text is what the QR code carries
    const secret = (await page.textContent("#totp-secret"))?.trim() ?? ""
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    await page.fill("#totp-code", totpCode(secret))
    await page.click("#totp-confirm")
    const codes = await page.locator("#recovery-codes li").allTextContents()
    expect(codes).toHaveLength(10)
    await page.click("#factors-link")
    expect(await page.textContent("#totp-status")).toBe("On")
    expect(await page.textContent("#recovery-left")).toBe("10 recovery codes left")

    await signOut(page, one.base)
    await password(page, one.base, email)
    await page.locator("#totp-code").waitFor()
    // the next time step: the enrolment's code was used up
    await page.fill("#totp-code", totpCode(secret, Date.now() + 30_000))
    await page.click("#submitButton")
    await page.waitForURL(leftAuth)
    expect(await sessionEmail(page, one.base)).toBe(email)

    // the device is lost: a recovery code instead
    await signOut(page, one.base)
    await password(page, one.base, email)
    await page.click("text=Lost your device? Use a recovery code")
    await page.fill("#recovery-code", codes[0] ?? "")
    await page.click("text=Use recovery code")
    await page.waitForURL(leftAuth)
    expect(await sessionEmail(page, one.base)).toBe(email)

    // the same code on the other instance: refused; another code works there
    await signOut(page, one.base)
    await password(page, two.base, email)
    await page.click("text=Lost your device? Use a recovery code")
    await page.fill("#recovery-code", codes[0] ?? "")
    await page.click("text=Use recovery code")
    await page.locator('.error[role="alert"]').waitFor()
    expect(await sessionEmail(page, two.base)).toBeUndefined()
    await page.click("text=Lost your device? Use a recovery code")
    await page.fill("#recovery-code", codes[1] ?? "")
    await page.click("text=Use recovery code")
    await page.waitForURL(leftAuth)
    expect(await sessionEmail(page, two.base)).toBe(email)
    await page.goto(`${two.base}/auth/factors`)
    expect(await page.textContent("#recovery-left")).toBe("8 recovery codes left")
    await page.close()
  }, 90_000)

  it("delete a passkey from the page (after the last-way warning): it can no longer sign in", async () => {
    await browser.context.clearCookies()
    const page = await authenticatorTab(browser)
    await page.goto(`${one.base}/auth/signin?${new URLSearchParams({ callbackUrl: home(one.base) })}`)
    await page.fill("#input-email-for-passkey-provider", "pat@example.test")
    await page.click("text=Register with Passkey")
    await page.waitForURL(leftAuth)

    await page.goto(`${one.base}/auth/factors`)
    await expect.poll(() => page.locator("li.passkey").count()).toBe(1)
    await page.fill("li.passkey input[name=name]", "Work laptop")
    await page.click("li.passkey >> text=Rename")
    expect(await page.textContent(".passkey-name")).toBe("Work laptop")
    expect(await page.textContent("li.passkey .hint")).toContain("Last used")

    await page.click("li.passkey button.delete")
    // the passkey is this user's only way to sign in: a warning first, and nothing deleted
    await page.locator("button.confirm-delete").waitFor()
    expect(await page.textContent(".error")).toContain("last way to sign in")
    await page.click("button.confirm-delete")
    await page.locator("#no-passkeys").waitFor()
    expect(await page.textContent(".done")).toContain("deleted")

    await signOut(page, one.base)
    await page.goto(`${one.base}/auth/signin?${new URLSearchParams({ callbackUrl: home(one.base) })}`)
    await page.click("text=Sign in with Passkey")
    await page.waitForURL((url) => url.searchParams.has("error"))
    expect(await sessionEmail(page, one.base)).toBeUndefined()
    await page.close()
  }, 90_000)

  it("a proof gone stale: new recovery codes go through the re-authentication (password) and back to the page", async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    await password(page, strict.base, "cy@example.test")
    await page.waitForURL(leftAuth)
    await page.waitForTimeout((STRICT_FRESH_FOR + 1.5) * 1000)

    await page.goto(`${strict.base}/auth/factors`)
    await page.click("#recovery-regenerate")
    await page.waitForURL((url) => url.pathname === "/auth/reauth")
    expect(page.url()).toContain(`callbackUrl=${encodeURIComponent(`${strict.base}/auth/factors`)}`)
    await page.fill("#reauth-email", "cy@example.test")
    await page.fill("#reauth-password", PASSWORD)
    await page.click("#submitButton")
    await page.waitForURL((url) => url.pathname === "/auth/factors")
    expect(await page.textContent("#recovery-left")).toBe("0 recovery codes left")
    await page.click("#recovery-regenerate")
    expect(await page.locator("#recovery-codes li").count()).toBe(10)
    await page.click("#factors-link")
    expect(await page.textContent("#recovery-left")).toBe("10 recovery codes left")
    await page.close()
  }, 90_000)
})
