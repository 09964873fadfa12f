/**
 * Attack class: login CSRF (double-submit token, Auth.js cookie format `token|sha256(token + secret)`).
 * A cross-site form can make the victim's browser POST anything, with the victim's cookies, but it
 * cannot read the CSRF token. So every state-changing POST (sign-in with each provider kind, the
 * credentials callback, sign-out, session update) must prove the token of the browser's own csrf
 * cookie in its body; a missing or wrong token, a token in the query, and a cookie minted with another
 * secret all end as `MissingCSRF`, and nothing happens: no session, no flow, no mail.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import Credentials from "../../src/providers/credentials.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import type { AuthClient } from "../helpers.js"
import { ORIGIN, browser, errorTypes, expectRefused, flowCookie, idpAndSmtp, oidcAt } from "./support.js"

const peers = idpAndSmtp(["idp"])

/** The attacker's own account: valid credentials, which the attacker wants the victim signed in with. */
const mallory = Credentials({
  credentials: { username: {}, password: {} },
  authorize: ({ username, password }) => (username === "mallory" && password === "mallory-pw" ? { id: "m", name: "Mallory" } : null),
})

function victim() {
  return browser([oidcAt(peers.idp, "idp"), mallory, Nodemailer({ server: peers.smtp.url })], { adapter: MemoryAdapter() })
}

const MISSING_CSRF = `${ORIGIN}/auth/signin?error=MissingCSRF`

/** A csrf cookie value `token|hash` as some deployment with `secret` would mint it. */
function csrfCookie(token: string, secret: string): string {
  return `${token}|${createHash("sha256").update(`${token}${secret}`).digest("hex")}`
}

/** The sign-in POSTs an attacker's page would auto-submit; `token` is put into the body when given. */
const posts: Array<[string, string, Record<string, string>]> = [
  ["credentials callback (sign in as the attacker)", "/auth/callback/credentials", { username: "mallory", password: "mallory-pw" }],
  ["OAuth sign-in start", "/auth/signin/idp", {}],
  ["email sign-in (mail a link)", "/auth/signin/nodemailer", { email: "victim@example.test" }],
  ["sign-in without a provider", "/auth/signin", {}],
]

async function expectNothingHappened(client: AuthClient, res: Response, mailsBefore: number) {
  await expectRefused(client, res, MISSING_CSRF)
  expect(client.jar.get(flowCookie("idp"))).toBeUndefined()
  expect(peers.smtp.messages).toHaveLength(mailsBefore)
}

describe("login CSRF: every sign-in POST needs the browser's own token", () => {
  it("baseline: with the right token the credentials callback signs in", async () => {
    const { client } = victim()
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "mallory", password: "mallory-pw" } })
    expect(res.status).toBe(303)
    expect(client.jar.get("authjs.session-token")).toBeTruthy()
  })

  it.each(posts)("login CSRF: %s without a token → MissingCSRF, nothing happens", async (_, path, form) => {
    const { client, log } = victim()
    await client.csrf() // the victim has a csrf cookie; the attacker's form cannot know its token
    const before = peers.smtp.messages.length
    await expectNothingHappened(client, await client.send(path, { form }), before)
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
  })

  it.each(posts)("login CSRF: %s with a wrong token → MissingCSRF", async (_, path, form) => {
    const { client, log } = victim()
    const real = await client.csrf()
    const wrong = `${real.slice(0, -1)}${real.endsWith("0") ? "1" : "0"}`
    const before = peers.smtp.messages.length
    await expectNothingHappened(client, await client.send(path, { form: { ...form, csrfToken: wrong } }), before)
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
  })

  it.each(posts)("login CSRF: %s with the token in the query string only → MissingCSRF", async (_, path, form) => {
    const { client } = victim()
    const csrfToken = await client.csrf()
    const before = peers.smtp.messages.length
    await expectNothingHappened(client, await client.send(`${path}?csrfToken=${csrfToken}`, { form }), before)
  })

  it.each(posts)("login CSRF: %s with a csrf cookie minted by another secret (and its token) → MissingCSRF", async (_, path, form) => {
    const { client, log } = victim()
    const token = "a".repeat(64)
    client.jar.cookies.set("authjs.csrf-token", csrfCookie(token, "the-attackers-own-deployment-secret-0123456789"))
    const before = peers.smtp.messages.length
    const res = await client.send(path, { form: { ...form, csrfToken: token } })
    await expectNothingHappened(client, res, before)
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
    // The forged cookie is replaced by one of ours.
    expect(client.jar.get("authjs.csrf-token")).not.toBe(csrfCookie(token, "the-attackers-own-deployment-secret-0123456789"))
  })

  it("login CSRF: a cookie whose hash belongs to another token does not vouch for the token", async () => {
    const { client, log } = victim()
    const real = await client.csrf()
    const ours = `${real.startsWith("f") ? "e" : "f"}${real.slice(1)}`
    const valid = client.jar.get("authjs.csrf-token") as string
    client.jar.cookies.set("authjs.csrf-token", `${ours}|${valid.split("|")[1]}`)
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken: ours, username: "mallory", password: "mallory-pw" } })
    await expectRefused(client, res, MISSING_CSRF)
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
  })

  it("login CSRF: sign-out and session update without the token change nothing", async () => {
    const { client } = victim()
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, username: "mallory", password: "mallory-pw" } })
    const session = client.jar.get("authjs.session-token")
    expect(session).toBeTruthy()
    const out = await client.send("/auth/signout", { form: {} })
    expect(out.headers.get("location")).toBe(MISSING_CSRF)
    expect(client.jar.get("authjs.session-token")).toBe(session)
    const update = await client.send("/auth/session", { json: { data: { name: "Eve" } } })
    expect(update.status).toBe(400)
    expect(await update.json()).toBeNull()
  })
})
