/**
 * Rate limits behind Express over real HTTP: the client is `req.ip`, so `trust proxy` decides whether
 * `X-Forwarded-For` is believed. Off: a forged header does not make a fresh client. On: the forwarded
 * client is the one counted.
 */
import express from "express"
import { describe, expect, it } from "vitest"
import { ExpressAuth } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import { SECRET, captureLogger } from "./helpers.js"
import { servesApps } from "./support/express-apps.js"

const serve = servesApps()

/** An app whose per-client ceiling is 2 requests a minute. */
async function app(trustProxy: boolean) {
  const server = express()
  if (trustProxy) server.set("trust proxy", true)
  server.use(
    "/auth",
    ExpressAuth({
      secret: SECRET,
      trustHost: true,
      logger: captureLogger().logger,
      rateLimit: { enabled: true, rules: { client: { max: 2, window: 60 } } },
      providers: [Credentials({ credentials: { email: {} }, authorize: async () => null })],
    }),
  )
  return serve(server)
}

const providers = (listening: Awaited<ReturnType<typeof app>>, forwardedFor: string) =>
  listening.send("/auth/providers", { headers: { "x-forwarded-for": forwardedFor } })

describe("the counted client behind Express", () => {
  it("trust proxy off: a forged X-Forwarded-For is not a fresh client", async () => {
    const listening = await app(false)
    expect((await providers(listening, "198.51.100.1")).status).toBe(200)
    expect((await providers(listening, "198.51.100.2")).status).toBe(200)
    const third = await providers(listening, "198.51.100.3")
    expect(third.status).toBe(429)
    expect(JSON.parse(third.body)).toMatchObject({ error: "RateLimited" })
  })

  it("trust proxy on: the forwarded client is counted, each on its own", async () => {
    const listening = await app(true)
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) expect((await providers(listening, ip)).status).toBe(200)
    expect((await providers(listening, "198.51.100.1")).status).toBe(200)
    const over = await providers(listening, "198.51.100.1")
    expect(over.status).toBe(429)
    expect(over.headers["retry-after"]).toBe("60")
  })
})
