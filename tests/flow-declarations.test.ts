/**
 * What a flow declares about itself takes effect (issue 37, "a flow owns what only it knows"): the
 * example app flow (tests/support/confirm-flow.ts) declares its sign-in page block, the limit on its first
 * route, its CSP form target, its linking and its requirements; email one-time codes declare theirs and no
 * longer borrow the magic link's type, form label, limits or requirements.
 */
import { describe, expect, it } from "vitest"
import { MissingAdapterMethods, MissingDependency } from "../src/index.js"
import type { AuthConfig } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { Adapter } from "../src/adapters/types.js"
import EmailCode from "../src/providers/email-code/index.js"
import Nodemailer from "../src/providers/nodemailer.js"
import { resolveConfig } from "../src/runtime/front/resolve.js"
import { missingOptionalPeers } from "../src/runtime/front/optional-peers.js"
import { CONFIRM_ORIGIN, confirmFlow } from "./support/confirm-flow.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const provider = { id: "two-step", name: "Two step", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null } as const

function clientFor(extra: Partial<AuthConfig> = {}, flow = confirmFlow()) {
  const log = captureLogger()
  const config: AuthConfig = { secret: SECRET, trustHost: true, logger: log.logger, flows: [flow], providers: [provider], ...extra }
  return { client: new AuthClient(config), log, config }
}

const formAction = (res: Response) => /form-action ([^;]*)/.exec(res.headers.get("content-security-policy") ?? "")?.[1]?.split(" ")
const labels = (page: string) => [...page.matchAll(/<label[^>]*>([^<]*)<\/label>/g)].map((m) => m[1])

describe("the example flow's declarations", () => {
  it("its block is what the sign-in page draws for its provider (not the credentials form of its type)", async () => {
    const { client } = clientFor()
    const page = await (await client.send("/auth/signin")).text()
    expect(page).toContain(`<div class="provider" data-flow="confirm"><form action="${ORIGIN}/auth/callback/two-step" method="POST">`)
    expect(page).toContain('<button type="submit">Continue with Two step</button>')
    expect(page).not.toContain("Sign in with Two step")
    expect(labels(page)).toEqual(["Username", "Password"])
  })

  it("its limit refuses: a second wrong password for one username from one client, not another username", async () => {
    const { client } = clientFor({ rateLimit: { enabled: true, rules: { passwordAccount: { window: 60, max: 1 } } } })
    const csrfToken = await client.csrf()
    const attempt = (username: string, password = "wrong") =>
      client.send("/auth/callback/two-step", { form: { csrfToken, username, password } })
    expect((await attempt("carol")).headers.get("location")).not.toContain("error=RateLimited")
    const refused = await attempt("Carol", "pw")
    expect(refused.status).toBe(303)
    expect(refused.headers.get("location")).toContain("error=RateLimited")
    expect(refused.headers.get("ratelimit-policy")).toBe('"passwordAccount";q=1;w=60')
    expect((await attempt("dave", "pw")).status).toBe(200)
  })

  it("its form target joins the CSP form-action of the sign-in page and of its own resting page", async () => {
    const { client } = clientFor({}, confirmFlow({ formTarget: CONFIRM_ORIGIN }))
    expect(formAction(await client.send("/auth/signin"))).toContain(CONFIRM_ORIGIN)
    const csrfToken = await client.csrf()
    const resting = await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw" } })
    expect(await resting.text()).toContain("type the code")
    expect(formAction(resting)).toContain(CONFIRM_ORIGIN)
    expect(formAction(await clientFor().client.send("/auth/signin"))).not.toContain(CONFIRM_ORIGIN)
  })

  it("its linking is the one the sign-in tail uses with an adapter", async () => {
    const { client } = clientFor({ adapter: MemoryAdapter(), session: { strategy: "jwt" } })
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw" } })
    const done = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(done.status).toBe(303)
    const session = (await (await client.send("/auth/session")).json()) as { user: { name: string } }
    expect(session.user.name).toBe("Carol (confirmed)")
  })

  it("a missing requirement fails at start-up with a clear error: an adapter method, an optional package", () => {
    const { config } = clientFor()
    const { getUser: _, ...withoutGetUser } = MemoryAdapter()
    const adapter: Adapter = withoutGetUser
    const methods = resolveConfig({ ...config, adapter, session: { strategy: "jwt" } }, {}).configError
    expect(methods).toBeInstanceOf(MissingAdapterMethods)
    expect(methods?.message).toContain("Required adapter methods were missing: getUser.")
    const flow = confirmFlow({ packages: ["confirm-gateway-not-installed"] })
    const packages = resolveConfig({ ...config, flows: [flow] }, {}).configError
    expect(packages).toBeInstanceOf(MissingDependency)
    expect(packages?.message).toBe(
      'The credentials provider "two-step" needs the package "confirm-gateway-not-installed", which is not installed: npm install confirm-gateway-not-installed',
    )
  })
})

describe("email one-time codes declare their own", () => {
  const codes = EmailCode({ sendCode: () => {} })
  const magicLinks = Nodemailer({ server: "smtp://127.0.0.1:2525" })

  it("type email-code; beside a magic link the sign-in page labels its field as a code", async () => {
    expect(codes.type).toBe("email-code")
    const client = new AuthClient({ secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [magicLinks, codes] })
    const page = await (await client.send("/auth/signin")).text()
    expect(labels(page)).toEqual(["Email for a sign-in link", "Email for a sign-in code"])
    expect(page).toContain(`<form action="${ORIGIN}/auth/signin/email-code" method="POST">`)
  })

  it("alone, it needs no adapter and its field is plain Email", async () => {
    const client = new AuthClient({ secret: SECRET, trustHost: true, providers: [codes] })
    const page = await (await client.send("/auth/signin")).text()
    expect(labels(page)).toEqual(["Email"])
  })

  it("its limit counts the address it will mail, normalised", async () => {
    const sent: string[] = []
    const provider = EmailCode({ sendCode: ({ identifier }) => void sent.push(identifier) })
    const rateLimit = { enabled: true, rules: { emailAddress: { window: 60, max: 1 } } }
    const client = new AuthClient({ secret: SECRET, trustHost: true, providers: [provider], rateLimit, logger: captureLogger().logger })
    const csrfToken = await client.csrf()
    const ask = (email: string) => client.send("/auth/signin/email-code", { form: { csrfToken, email } })
    expect((await ask("erin@example.test")).status).toBe(200)
    const refused = await ask(" ERIN@example.test")
    expect(refused.headers.get("location")).toContain("error=RateLimited")
    expect(sent).toEqual(["erin@example.test"])
  })

  it("it requires nodemailer only when it sends over SMTP, named as an email-code provider", () => {
    const flowsOf = (providers: AuthConfig["providers"]) => {
      const resolved = resolveConfig({ secret: SECRET, trustHost: true, providers, logger: captureLogger().logger }, {})
      return { providers: resolved.providers.values(), flows: resolved.flows }
    }
    const withoutNodemailer = (name: string) => name !== "nodemailer"
    const smtp = flowsOf([EmailCode({ server: "smtp://127.0.0.1:2525" })])
    expect(missingOptionalPeers(smtp.providers, withoutNodemailer, smtp.flows)?.message).toBe(
      'The email-code provider "email-code" needs the package "nodemailer", which is not installed: npm install nodemailer',
    )
    const own = flowsOf([codes])
    expect(missingOptionalPeers(own.providers, withoutNodemailer, own.flows)).toBeNull()
  })
})
