/**
 * Requests that bring the same session cookie at once share one decryption: ten concurrent reads of a
 * token this config has not verified yet call jose once, and all ten get the session. (Before, each read
 * decrypted on its own, and reads that finished at different times reached what follows apart: ten
 * concurrent `getAccessToken` calls could then start two refreshes.)
 */
import { describe, expect, it, vi } from "vitest"
import type * as Sealed from "../src/runtime/crypto/sealed.js"
import Credentials from "../src/providers/credentials.js"
import { AuthClient, SECRET } from "./helpers.js"

const calls = vi.hoisted(() => ({ decrypt: 0 }))
vi.mock("../src/runtime/crypto/sealed.js", async (importOriginal) => {
  const sealed = await importOriginal<typeof Sealed>()
  return {
    ...sealed,
    decryptJwt: (...args: Parameters<typeof sealed.decryptJwt>) => {
      calls.decrypt++
      return sealed.decryptJwt(...args)
    },
  }
})

const people = Credentials({
  credentials: { username: {} },
  authorize: ({ username }) => ({ id: `u-${String(username)}`, name: String(username), email: `${String(username)}@example.test` }),
})

describe("one decryption per session token in flight", () => {
  it("ten concurrent reads of a fresh token decrypt it once and all answer the session", async () => {
    const signer = new AuthClient({ secret: SECRET, trustHost: true, providers: [people] })
    const csrfToken = await signer.csrf()
    expect((await signer.send("/auth/callback/credentials", { form: { csrfToken, username: "ada" } })).status).toBe(303)
    // another config (a new instance): the token is not among its verified ones yet
    const reader = new AuthClient({ secret: SECRET, trustHost: true, providers: [people] })
    for (const [name, value] of signer.jar.cookies) reader.jar.cookies.set(name, value)
    calls.decrypt = 0
    const reads = await Promise.all(Array.from({ length: 10 }, () => reader.send("/auth/session").then((r) => r.json())))
    expect(reads.map((s: { user?: { name?: string } } | null) => s?.user?.name)).toEqual(Array(10).fill("ada"))
    expect(calls.decrypt).toBe(1)
    // and read again later: the verified token is kept, nothing is decrypted
    await reader.send("/auth/session")
    expect(calls.decrypt).toBe(1)
  })
})
