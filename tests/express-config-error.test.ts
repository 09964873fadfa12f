/**
 * `getSession` with a configuration error (a secret under 32 characters, documented as refused) inside an
 * app's async route, on Express 4 and 5: the error reaches the app's error handler on every request,
 * logged once, and no request hangs (Express 4's router ignores a rejected promise: getSession hands the
 * error to `next` itself there).
 */
import { createRequire } from "node:module"
import express, { type NextFunction, type Request, type Response } from "express"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type AuthError, MissingSecret } from "../src/errors.js"
import type { AuthConfig } from "../src/index.js"
import { ExpressAuth, getSession } from "../src/integration/express.js"
import { captureLogger } from "./helpers.js"
import { servesApps } from "./support/express-apps.js"

type ExpressFactory = typeof express
/** Express 4, installed as the alias `express4` (CommonJS, typed like Express 5 for what this test uses). */
const express4 = createRequire(import.meta.url)("express4") as ExpressFactory

const serve = servesApps()
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)
beforeEach(() => {
  unhandled.length = 0
  process.on("unhandledRejection", onUnhandled)
})
afterEach(() => {
  process.off("unhandledRejection", onUnhandled)
})

/** An app with an async route reading the session, and an error handler answering the error's type. */
async function appWith(factory: ExpressFactory, config: AuthConfig | undefined, mount: boolean) {
  const app = factory()
  if (mount && config) app.use("/auth", ExpressAuth(config))
  app.get("/me", async (req: Request, res: Response) => {
    const session = await getSession(req, config)
    res.json({ session, resumed: true })
  })
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ handled: (err as Partial<AuthError>).type ?? err.name, message: err.message })
  })
  return serve(app)
}

describe.each([
  { name: "Express 4", factory: express4 },
  { name: "Express 5", factory: express },
])("$name: getSession with a configuration error", ({ factory }) => {
  it("a too-short secret: the error handler answers every request with MissingSecret, logged once", async () => {
    const log = captureLogger()
    const config: AuthConfig = { secret: "too-short", trustHost: true, providers: [], logger: log.logger }
    const { base } = await appWith(factory, config, true)
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${base}/me`, { signal: AbortSignal.timeout(5_000) })
      expect(response.status).toBe(500)
      const body = await response.json()
      expect(body.handled).toBe("MissingSecret")
      expect(body.message).toMatch(/^Please define a `secret` of at least 32 characters/)
    }
    expect(log.errors).toHaveLength(1)
    expect(log.errors[0]).toBeInstanceOf(MissingSecret)
    await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })

  it("no config and no ExpressAuth on the app: a clear error for the error handler", async () => {
    const { base } = await appWith(factory, undefined, false)
    const response = await fetch(`${base}/me`, { signal: AbortSignal.timeout(5_000) })
    expect(response.status).toBe(500)
    expect((await response.json()).message).toMatch(/found no ExpressAuth on this app/)
    await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })
})
