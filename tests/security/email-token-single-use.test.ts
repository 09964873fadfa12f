/**
 * Attack class: magic-link replay through a store that does not delete. A custom adapter whose
 * `useVerificationToken` returns the token but keeps it (a bug, or a read replica that has not seen the
 * delete yet) would let a used link in again; the first use is also claimed in the server-state port
 * (`verifyLink`, src/runtime/engine/effects/email.ts), so the second opening is `Verification`, no session.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import type { Adapter, VerificationToken } from "../../src/adapters/types.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import { AuthClient } from "../helpers.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"
import { ORIGIN, browser, errorTypes, expectRefused } from "./support.js"

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(async () => {
  await smtp?.stop()
})

/** The memory adapter, except that using a verification token leaves it in place. */
function leakyAdapter(): Adapter {
  const adapter = MemoryAdapter()
  const kept = new Map<string, VerificationToken>()
  return {
    ...adapter,
    async createVerificationToken(token) {
      kept.set(`${token.identifier}\u0000${token.token}`, token)
      return token
    },
    async useVerificationToken({ identifier, token }) {
      return kept.get(`${identifier}\u0000${token}`) ?? null
    },
  }
}

describe("magic-link replay through a store that does not delete", () => {
  it("the second opening of a used link is Verification, no session", async () => {
    const { client, config, log } = browser([Nodemailer({ server: smtp.url, from: "auth@example.test" })], {
      adapter: leakyAdapter(),
      session: { strategy: "jwt" },
    })
    const csrfToken = await client.csrf()
    const before = smtp.messages.length
    await client.send("/auth/signin/nodemailer", {
      form: { csrfToken, email: `leaky-${randomUUID()}@example.test`, callbackUrl: "/inbox" },
    })
    const link = new URL((await smtp.waitForMessage(before + 1)).links.find((l) => l.includes("/auth/callback/nodemailer")) as string)

    const owner = new AuthClient(config)
    expect((await owner.send(`${link.pathname}${link.search}`)).headers.get("location")).toBe(`${ORIGIN}/inbox`)
    const thief = new AuthClient(config)
    await expectRefused(thief, await thief.send(`${link.pathname}${link.search}`), `${ORIGIN}/auth/error?error=Verification`)
    expect(errorTypes(log).at(-1)).toBe("Verification")
    expect(log.errors.at(-1)?.message).toBe("The sign-in link was already used.")
  })
})
