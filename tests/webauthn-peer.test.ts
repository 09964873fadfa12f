/**
 * `@simplewebauthn/server` is an optional peer: without it, passkey requests fail with an error that
 * names the package to install (logged; the user sees `error=Configuration`), and nothing else breaks.
 */
import { expect, it, vi } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Passkey from "../src/providers/passkey.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

vi.mock("@simplewebauthn/server", () => {
  throw new Error("Cannot find package '@simplewebauthn/server'")
})

it("names the missing package", async () => {
  const log = captureLogger()
  const client = new AuthClient({
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    adapter: MemoryAdapter(),
    experimental: { enableWebAuthn: true },
    providers: [Passkey()],
  })
  expect((await client.send("/auth/session")).status).toBe(200)
  const res = await client.send("/auth/webauthn-options/passkey?action=authenticate")
  expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  expect(log.errors.map((e) => e.message).join("\n")).toContain("npm install @simplewebauthn/server")
})
