/**
 * Recovery codes as a person uses them, in Chromium, across two instances (two Express apps sharing a
 * real redis-server through `RedisServerState`, one secret, one user store): sign in with a password,
 * turn on an authenticator app from the account page (`<base>/factors`, whose confirmation shows the ten
 * recovery codes once), sign out, lose the device, sign in with a recovery code from the TOTP page's
 * "Lost your device?" section; then the same code is refused on the second instance.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import express from "express"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import { ExpressAuth } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import { recoveryCodeStep } from "../src/steps/recovery-codes.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { RedisServerState } from "../src/stores/redis.js"
import type { User } from "../src/types.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, launchBrowser } from "./support/browser.js"
import { type RedisServer, type TestRedisClient, connectClient, freePort, startRedis } from "./support/redis-server.js"

const EMAIL = "ada@example.test"
const PASSWORD = "correct horse battery staple"

interface Instance {
  base: string
  used: { user: User; remaining: number }[]
  stop(): Promise<void>
}

let redis: RedisServer
let redisClient: TestRedisClient
let browser: Browser
let a: Instance
let b: Instance

/** One instance of the app: credentials, then the TOTP step with recovery codes; state in the shared Redis. */
async function instance(adapter: ReturnType<typeof MemoryAdapter>): Promise<Instance> {
  const port = await freePort()
  const used: Instance["used"] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: captureLogger().logger,
    serverState: RedisServerState(redisClient, { prefix: "recovery-browser:" }),
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        authorize: ({ email, password }) => (email === EMAIL && password === PASSWORD ? { id: "u-ada", email: EMAIL } : null),
      }),
    ],
    flows: [extendFlow(credentialsFlow, [recoveryCodeStep(totpStep())])],
    events: { recoveryCodeUsed: (message) => void used.push(message) },
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.get("/", (_req, res) => void res.send("<!DOCTYPE html><title>home</title><p>home</p>"))
  const server: Server = app.listen(port, "127.0.0.1")
  await once(server, "listening")
  return {
    base: `http://localhost:${port}`,
    used,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

beforeAll(async () => {
  ;[redis, browser] = await Promise.all([startRedis(), launchBrowser()])
  redisClient = await connectClient(redis.url)
  const adapter = MemoryAdapter()
  await adapter.createUser({ id: "u-ada", email: EMAIL, emailVerified: null })
  ;[a, b] = await Promise.all([instance(adapter), instance(adapter)])
}, 60_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), browser?.close()])
  redisClient?.destroy()
  await redis?.stop()
}, 20_000)

/** The sign-in page's credentials form, filled and sent. */
async function enterPassword(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/auth/signin`)
  await page.fill('input[name="email"]', EMAIL)
  await page.fill('input[name="password"]', PASSWORD)
  await page.click("text=Sign in with Credentials")
}

async function sessionEmail(page: Page, base: string): Promise<string | undefined> {
  const session = (await (await page.context().request.get(`${base}/auth/session`)).json()) as { user?: { email?: string } } | null
  return session?.user?.email
}

/** On the TOTP page: "Lost your device?", the recovery code typed as a person would, its button. */
async function useRecoveryCode(page: Page, code: string): Promise<void> {
  await page.locator("#totp-code").waitFor()
  expect(await page.locator("#recovery-code").isVisible()).toBe(false)
  await page.click("text=Lost your device? Use a recovery code")
  await page.fill("#recovery-code", code.toUpperCase())
  await page.click("text=Use recovery code")
}

describe("recovery codes in Chromium, across two instances", () => {
  it("enrol from the account page, sign out, lose the device, sign in with a recovery code; the code is refused on the second instance", async () => {
    const page = await browser.context.newPage()
    // password only: no second factor yet
    await enterPassword(page, a.base)
    await page.waitForURL(`${a.base}/`)
    expect(await sessionEmail(page, a.base)).toBe(EMAIL)

    // the account page: turn on an authenticator app; its confirmation shows the recovery codes once
    await page.goto(`${a.base}/auth/factors`)
    expect(await page.locator("#recovery-left").textContent()).toBe("0 recovery codes left")
    await page.click("#totp-enrol")
    const secret = (await page.locator("#totp-secret").textContent())?.trim() ?? ""
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    await page.fill("#totp-code", totpCode(secret))
    await page.click("#totp-confirm")
    const codes = (await page.locator("#recovery-codes li").allTextContents()).map((code) => code.trim())
    expect(codes).toHaveLength(10)
    await page.goto(`${a.base}/auth/factors`)
    expect(await page.locator("#totp-status").textContent()).toBe("On")
    expect(await page.locator("#recovery-left").textContent()).toBe("10 recovery codes left")

    // sign out
    await page.goto(`${a.base}/auth/signout`)
    await page.click('button[type="submit"]')
    await page.waitForURL(`${a.base}/`)
    expect(await sessionEmail(page, a.base)).toBeUndefined()

    // the device is lost: password, then a recovery code instead of the app's code
    await enterPassword(page, a.base)
    // Enter in the empty 6-digit field is still stopped by the browser (no request, no attempt spent)
    await page.locator("#totp-code").waitFor()
    const posts: string[] = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(request.url())))
    await page.focus("#totp-code")
    await page.keyboard.press("Enter")
    await page.waitForTimeout(300)
    expect(posts).toEqual([])
    expect(await page.locator("#totp-code").evaluate((input) => input instanceof HTMLInputElement && input.validity.valueMissing)).toBe(
      true,
    )
    await useRecoveryCode(page, codes[0] as string)
    await page.waitForURL(`${a.base}/`)
    expect(await sessionEmail(page, a.base)).toBe(EMAIL)
    expect(a.used.map((event) => [event.user.id, event.remaining])).toEqual([["u-ada", 9]])
    await page.goto(`${a.base}/auth/factors`)
    expect(await page.locator("#recovery-left").textContent()).toBe("9 recovery codes left")

    // the second instance, a new browser session: the same code is refused there
    await browser.context.clearCookies()
    await enterPassword(page, b.base)
    await useRecoveryCode(page, codes[0] as string)
    await page.locator('[role="alert"]').waitFor()
    expect(await page.locator('[role="alert"]').textContent()).toContain("That recovery code is not valid or was already used.")
    expect(page.url()).toBe(`${b.base}/auth/callback/credentials`)
    expect(await sessionEmail(page, b.base)).toBeUndefined()
    expect(b.used).toEqual([])

    // another code of the set still works there
    await useRecoveryCode(page, codes[1] as string)
    await page.waitForURL(`${b.base}/`)
    expect(await sessionEmail(page, b.base)).toBe(EMAIL)
    expect(b.used.map((event) => event.remaining)).toEqual([8])
    await page.close()
  }, 90_000)
})
