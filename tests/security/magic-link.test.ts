/**
 * Attack class: magic-link replay and mismatch. A sign-in link is single use, bound to its address and
 * to the provider that mailed it: a link opened again (read from a mail log or a proxy), a token sent
 * with another address, and a token of one email provider opened at another's callback end in
 * `Verification`, with no session, and a link tried with the wrong address is not burned for its owner.
 * With the adapter's verification tokens and with the Redis flow store's single-use records (no adapter).
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import { RedisFlowStore } from "../../src/stores/redis.js"
import { AuthClient } from "../helpers.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"
import { ORIGIN, browser, errorTypes, expectRefused } from "./support.js"

let smtp: SmtpCapture
let redis: RedisServer
let redisClient: TestRedisClient
beforeAll(async () => {
  ;[smtp, redis] = await Promise.all([startSmtp(), startRedis()])
  redisClient = await connectClient(redis.url)
})
afterAll(async () => {
  redisClient?.destroy()
  await Promise.all([smtp?.stop(), redis?.stop()])
})

const VERIFICATION = `${ORIGIN}/auth/error?error=Verification`

const stores: Array<[string, () => Partial<AuthConfig>]> = [
  ["the adapter's verification tokens", () => ({ adapter: MemoryAdapter() })],
  ["the Redis flow store (no adapter)", () => ({ flowStore: RedisFlowStore(redisClient, { prefix: `magic:${randomUUID()}:` }) })],
]

describe.each(stores)("magic links with %s", (_, storage) => {
  function site() {
    const providers = [
      Nodemailer({ server: smtp.url, from: "auth@example.test" }),
      Nodemailer({ id: "work-email", name: "Work email", server: smtp.url, from: "auth@example.test" }),
    ]
    return browser(providers, storage())
  }

  /** Requests a link for `email` with `provider`; returns the link and a fresh-browser opener. */
  async function linkFor(email: string, provider = "nodemailer") {
    const requested = site()
    const csrfToken = await requested.client.csrf()
    const before = smtp.messages.length
    await requested.client.send(`/auth/signin/${provider}`, { form: { csrfToken, email, callbackUrl: "/inbox" } })
    const message = await smtp.waitForMessage(before + 1)
    const link = new URL(message.links.find((l) => l.includes(`/auth/callback/${provider}`)) as string)
    // opened on another device: a fresh browser of the same site
    const open = async (url: URL) => {
      const client = new AuthClient(requested.config)
      return { client, res: await client.send(`${url.pathname}${url.search}`) }
    }
    return { link, open, log: requested.log }
  }

  it("baseline: the link signs its owner in once", async () => {
    const { link, open } = await linkFor(`owner-${randomUUID()}@example.test`)
    const { res } = await open(link)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/inbox`)
  })

  it("magic-link replay: a used link opened again (by whoever read it) is Verification, no session", async () => {
    const { link, open, log } = await linkFor(`replay-${randomUUID()}@example.test`)
    expect((await open(link)).res.headers.get("location")).toBe(`${ORIGIN}/inbox`)
    const replay = await open(link)
    await expectRefused(replay.client, replay.res, VERIFICATION)
    expect(errorTypes(log)).toContain("Verification")
  })

  it("magic-link mismatch: the token with another address is Verification, and the owner's link still works", async () => {
    const owner = `owner-${randomUUID()}@example.test`
    const { link, open } = await linkFor(owner)
    const forged = new URL(link)
    forged.searchParams.set("email", "attacker@evil.test")
    const attempt = await open(forged)
    await expectRefused(attempt.client, attempt.res, VERIFICATION)
    expect((await open(link)).res.headers.get("location")).toBe(`${ORIGIN}/inbox`)
  })

  it("magic-link mismatch: a link of one email provider opened at another's callback is Verification", async () => {
    const { link, open } = await linkFor(`cross-${randomUUID()}@example.test`, "work-email")
    const elsewhere = new URL(link)
    elsewhere.pathname = "/auth/callback/nodemailer"
    const attempt = await open(elsewhere)
    await expectRefused(attempt.client, attempt.res, VERIFICATION)
  })

  it.each([
    ["no token", (u: URL) => u.searchParams.delete("token")],
    ["an empty token", (u: URL) => u.searchParams.set("token", "")],
    ["a token one character off", (u: URL) => u.searchParams.set("token", `${(u.searchParams.get("token") as string).slice(0, -1)}x`)],
    [
      "the token twice (first one wrong)",
      (u: URL) => u.searchParams.set("token", `${"0".repeat(64)}&token=${u.searchParams.get("token")}`),
    ],
  ])("magic-link mismatch: %s is Verification", async (_, edit) => {
    const { link, open } = await linkFor(`edit-${randomUUID()}@example.test`)
    const edited = new URL(link)
    edit(edited)
    const url = new URL(edited.href.replace(/%26token%3D/i, "&token="))
    const attempt = await open(url)
    await expectRefused(attempt.client, attempt.res, VERIFICATION)
  })
})
