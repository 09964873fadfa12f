/**
 * Attack class: WebAuthn challenge replay across instances. A passkey response is
 * captured in Chromium (virtual authenticator) on instance A, which signs in with it; the same POST (flow
 * cookie and response) is then sent to instance B: another config of the same app (its own in-process
 * state), sharing the adapter and one `RedisServerState` on a real redis-server.
 *
 * To test the challenge claim on its own (`consumeChallenge`, src/runtime/engine/effects/webauthn-support.ts),
 * the instances' port forgets flow-snapshot claims: the snapshot guard (tests/security/flow-replay.test.ts)
 * is out of the way, and only the challenge, claimed in the shared port on A, refuses the replay on B.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { Auth, type AuthConfig, type ServerState } from "../../src/index.js"
import { ExpressAuth } from "../../src/integration/express.js"
import Passkey from "../../src/providers/passkey.js"
import { RedisServerState } from "../../src/stores/redis.js"
import { SECRET, captureLogger } from "../helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "../support/browser.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"

const CALLBACK = "**/auth/callback/passkey"

let redisServer: RedisServer
let redis: TestRedisClient
let browser: Browser
let server: Server
let base: string
const adapter = MemoryAdapter()

/** The shared port with flow-snapshot claims forgotten, so only the challenge claim guards. */
function withoutFlowClaims(state: ServerState): ServerState {
  return { ...state, claim: (key, ttl) => (key.startsWith("flow:") ? Promise.resolve(true) : state.claim(key, ttl)) }
}

function instance(serverState: ServerState) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: log.logger,
    serverState,
    experimental: { enableWebAuthn: true },
    providers: [Passkey()],
  }
  return { config, log }
}

let shared: ServerState

beforeAll(async () => {
  ;[redisServer, browser] = await Promise.all([startRedis(), launchBrowser()])
  redis = await connectClient(redisServer.url)
  shared = withoutFlowClaims(RedisServerState(redis, { prefix: "challenge:" }))
  const app = express()
  app.use("/auth", ExpressAuth(instance(shared).config))
  app.get("/", (_req, res) => void res.send("<p>home</p>"))
  server = app.listen(0, "127.0.0.1")
  await once(server, "listening")
  base = `http://localhost:${(server.address() as AddressInfo).port}`
}, 30_000)

afterAll(async () => {
  await browser?.close()
  server?.close()
  redis?.destroy()
  await redisServer?.stop()
})

/** Registers a passkey on A, signs out, then captures (and aborts) the sign-in POST of that passkey. */
async function capturedSignIn(page: Page, email: string) {
  await page.goto(`${base}/auth/signin`)
  await page.fill("#input-email-for-passkey-provider", email)
  await page.click("text=Register with Passkey")
  await page.waitForURL(`${base}/`)
  await page.context().clearCookies()
  const posted = new Promise<string>((resolve) => {
    void page.route(CALLBACK, async (route) => {
      resolve(route.request().postData() ?? "")
      await route.abort()
    })
  })
  await page.goto(`${base}/auth/signin`)
  await page.click("text=Sign in with Passkey")
  const body = await posted
  const cookie = (await page.context().cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ")
  return { body, cookie }
}

const post = (cookie: string, body: string, config?: AuthConfig) => {
  const request = new Request(`${base}/auth/callback/passkey`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body,
  })
  return config ? Auth(request, config) : fetch(request)
}

describe("WebAuthn challenge replay across instances", () => {
  it("a challenge answered on A is refused on B (shared port): WebAuthnVerificationError, no session", async () => {
    const page = await authenticatorTab(browser)
    const { body, cookie } = await capturedSignIn(page, "challenge@example.test")
    await page.close()

    const onA = await post(cookie, body)
    expect(onA.status).toBe(303)
    expect(onA.headers.get("location")).toBe(base)
    expect(onA.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)

    const b = instance(shared)
    const onB = await post(cookie, body, b.config)
    expect(onB.headers.get("location")).toBe(`${base}/auth/error?error=WebAuthnVerificationError`)
    expect(onB.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.startsWith("authjs.session-token=;"))).toBe(
      false,
    )
    expect(b.log.errors.map((e) => e.message)).toEqual(["This challenge was already answered."])
  }, 60_000)
})
