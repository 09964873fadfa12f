/**
 * Passkeys with the flow state in Redis (`RedisFlowStore`) and users in the Redis adapter, in Chromium:
 * the challenge waits in Redis, not in the cookie, and is taken (GETDEL) by the response, so a resent
 * response finds nothing.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { afterAll, beforeAll, expect, it } from "vitest"
import { RedisAdapter } from "../src/adapters/redis.js"
import { ExpressAuth } from "../src/integration/express.js"
import Passkey from "../src/providers/passkey.js"
import { RedisFlowStore } from "../src/stores/redis.js"
import { SECRET, captureLogger } from "./helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "./support/redis-server.js"

let redis: RedisServer
let client: TestRedisClient
let server: Server
let browser: Browser
let base: string
const log = captureLogger()

beforeAll(async () => {
  redis = await startRedis()
  client = await connectClient(redis.url)
  const app = express()
  app.use(
    "/auth",
    ExpressAuth({
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      adapter: RedisAdapter(client, { prefix: "users:" }),
      flowStore: RedisFlowStore(client, { prefix: "flow:" }),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
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
  client?.destroy()
  await redis?.stop()
})

it("register and sign in with the challenge kept in Redis; the response is taken once", async () => {
  const page = await authenticatorTab(browser)
  await page.goto(`${base}/auth/signin`)
  await page.fill("#input-email-for-passkey-provider", "rene@example.test")
  await page.click("text=Register with Passkey")
  await page.waitForURL(`${base}/`)
  expect(await client.keys("flow:*")).toEqual([])

  await page.goto(`${base}/auth/signout`)
  await page.click("button")
  await page.waitForURL(`${base}/`)
  await page.goto(`${base}/auth/signin`)
  let posted: { body: string; cookie: string; pending: string[] } | undefined
  await page.route("**/auth/callback/passkey", async (route) => {
    const cookie = (await page.context().cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ")
    posted = { body: route.request().postData() ?? "", cookie, pending: await client.keys("flow:*") }
    await route.continue()
  })
  await page.click("text=Sign in with Passkey")
  await page.waitForURL(`${base}/`)
  expect(await (await page.context().request.get(`${base}/auth/session`)).json()).toMatchObject({ user: { email: "rene@example.test" } })
  expect(posted?.pending).toHaveLength(1)
  expect(posted?.cookie).not.toMatch(/authchart\.flow\.passkey=eyJ/)
  expect(await client.keys("flow:*")).toEqual([])

  const again = await fetch(`${base}/auth/callback/passkey`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: posted?.cookie ?? "", "content-type": "application/x-www-form-urlencoded" },
    body: posted?.body ?? "",
  })
  expect(again.status).toBe(303)
  expect(again.headers.get("location")).toBe(`${base}/auth/signin?error=FlowStateError`)
  expect(again.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false)
}, 60_000)
