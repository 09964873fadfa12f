/**
 * Express apps for edge and attack tests: both supported majors (Express 4 is installed as the alias
 * `express4`), and a listener that serves an app on a loopback port and closes it after each test.
 */
import { createRequire } from "node:module"
import type { RequestListener } from "node:http"
import express from "express"
import { afterEach } from "vitest"
import { type Listening, listenRaw } from "./raw-http.js"

export type ExpressFactory = typeof express

/** Express 4 and 5, for `describe.each` (Express 4 typed like 5 for what the tests use). */
export const expressVersions: ReadonlyArray<{ name: string; factory: ExpressFactory }> = [
  { name: "Express 4", factory: createRequire(import.meta.url)("express4") as ExpressFactory },
  { name: "Express 5", factory: express },
]

/** Returns `serve(app)`: listens on a free loopback port; every app served is closed after each test. */
export function servesApps(): (app: RequestListener) => Promise<Listening> {
  const open: Listening[] = []
  afterEach(async () => {
    for (const app of open.splice(0)) await app.close()
  })
  return async (app) => {
    const listening = await listenRaw(app)
    open.push(listening)
    return listening
  }
}
