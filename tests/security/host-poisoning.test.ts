/**
 * Attack class: Host and forwarded-header poisoning. An attacker sends `Host: evil.test` (or
 * `X-Forwarded-Host`/`-Proto` through a trusting proxy) so that the magic link mailed to the victim, the
 * OAuth `redirect_uri`, page form actions and redirects point at the attacker's site; whoever holds the
 * mailed token then signs in as the victim. Every URL must come from the one resolved origin: `AUTH_URL`
 * (or `url`) when set, whatever the request says; otherwise the request's host only when trusted, and in
 * production only when it is on the `trustHost` allow-list. Real HTTP (Express) and a real SMTP server.
 */
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { Auth } from "../../src/index.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../../src/integration/express.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import OAuth from "../../src/providers/oauth.js"
import { hostAllowed } from "../../src/runtime/http/origin.js"
import { withEnvDefaults } from "../../src/runtime/config/env.js"
import { SECRET, captureLogger } from "../helpers.js"
import { servesApps } from "../support/express-apps.js"
import { type Listening, type RawResponse, withEnv } from "../support/raw-http.js"
import { startSmtp, type SmtpCapture } from "../support/smtp.js"

const PUBLIC = "https://app.example.test"
const EVIL = "evil.test"
const VICTIM = "victim@example.test"

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp?.stop())

const listen = servesApps()

function makeConfig(extra: Partial<ExpressAuthConfig> = {}) {
  const log = captureLogger()
  const config: ExpressAuthConfig = {
    secret: SECRET,
    adapter: MemoryAdapter(),
    logger: log.logger,
    providers: [
      Nodemailer({ server: smtp.url, from: "authchart <auth@example.test>" }),
      OAuth({
        id: "corp",
        authorization: "https://idp.example.test/authorize",
        token: "https://idp.example.test/token",
        userinfo: "https://idp.example.test/userinfo",
        clientId: "client",
        clientSecret: "client-secret",
      }),
    ],
    ...extra,
  }
  return { config, log }
}

interface Mount {
  config: ExpressAuthConfig
  trustProxy?: boolean
  /** Environment while the middleware resolves its config (start-up). */
  env?: Record<string, string | undefined>
}

async function serve({ config, trustProxy = false, env = {} }: Mount): Promise<Listening> {
  const app = express()
  if (trustProxy) app.set("trust proxy", true)
  withEnv(env, () => app.use("/auth", ExpressAuth(config)))
  app.get("/me", (req, res) => {
    getSession(req, config).then(
      (session) => res.json({ session }),
      (err: Error) => res.status(500).json({ message: err.message }),
    )
  })
  return listen(app)
}

const cookieHeader = (responses: RawResponse[]): string =>
  responses
    .flatMap((r) => r.setCookies)
    .map((line) => line.split(";")[0])
    .join("; ")

/** GET /csrf then POST /signin/nodemailer for the victim, every request carrying `headers`. */
async function requestMagicLink(app: Listening, headers: Record<string, string>) {
  const before = smtp.messages.length
  const csrf = await app.send("/auth/csrf", { headers })
  const csrfToken = csrf.status === 200 ? (JSON.parse(csrf.body) as { csrfToken: string }).csrfToken : ""
  const signin = await app.send("/auth/signin/nodemailer", {
    headers: { ...headers, cookie: cookieHeader([csrf]) },
    form: { csrfToken, email: VICTIM, callbackUrl: "/inbox" },
  })
  return { csrf, signin, before }
}

async function mailedLink(before: number): Promise<URL> {
  const message = await smtp.waitForMessage(before + 1)
  expect(message.envelopeTo).toEqual([VICTIM])
  const link = message.links.find((l) => l.includes("/callback/nodemailer"))
  expect(message.text).not.toContain(EVIL)
  expect(message.html).not.toContain(EVIL)
  if (!link) throw new Error(`no magic link in: ${message.text}`)
  return new URL(link)
}

describe("Host poisoning with AUTH_URL set: the pinned origin wins, always", () => {
  const env = { AUTH_URL: `${PUBLIC}/auth`, NODE_ENV: "production" }

  it("Host: evil.test → the mailed magic link and the redirect use AUTH_URL", async () => {
    const app = await serve({ config: makeConfig().config, env })
    const { signin, before } = await requestMagicLink(app, { host: EVIL })
    expect(signin.status).toBe(303)
    expect(signin.location).toBe(`${PUBLIC}/auth/verify-request?provider=nodemailer&type=email`)
    const link = await mailedLink(before)
    expect(link.origin).toBe(PUBLIC)
    expect(link.pathname).toBe("/auth/callback/nodemailer")
    expect(link.searchParams.get("callbackUrl")).toBe(`${PUBLIC}/inbox`)
  })

  it("trust proxy + X-Forwarded-Host: evil.test, X-Forwarded-Proto: http → still AUTH_URL", async () => {
    const app = await serve({ config: makeConfig().config, env, trustProxy: true })
    const headers = { host: "127.0.0.1", "x-forwarded-host": EVIL, "x-forwarded-proto": "http" }
    const { csrf, signin, before } = await requestMagicLink(app, headers)
    // secure cookie names follow the pinned https origin, not the forwarded http
    expect(csrf.setCookies.map((c) => c.split("=")[0])).toEqual(["__Host-authjs.csrf-token"])
    expect(signin.location).toBe(`${PUBLIC}/auth/verify-request?provider=nodemailer&type=email`)
    expect((await mailedLink(before)).origin).toBe(PUBLIC)
  })

  it("the OAuth redirect_uri, page form actions, error redirects and X-Auth-Return-Redirect use AUTH_URL", async () => {
    const app = await serve({ config: makeConfig().config, env, trustProxy: true })
    const headers = { host: EVIL, "x-forwarded-host": EVIL }
    const csrf = await app.send("/auth/csrf", { headers })
    const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
    const cookie = cookieHeader([csrf])

    const start = await app.send("/auth/signin/corp", { headers: { ...headers, cookie }, form: { csrfToken } })
    expect(start.status).toBe(303)
    const authorize = new URL(start.location ?? "")
    expect(authorize.origin).toBe("https://idp.example.test")
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PUBLIC}/auth/callback/corp`)

    const page = await app.send("/auth/signin", { headers })
    expect(page.status).toBe(200)
    expect(page.body).toContain(`${PUBLIC}/auth/signin/nodemailer`)
    expect(page.body).not.toContain(EVIL)

    const error = await app.send("/auth/callback/nobody", { headers })
    expect(error.location).toMatch(new RegExp(`^${PUBLIC}/auth/`))

    const returned = await app.send("/auth/signin/corp", {
      headers: { ...headers, cookie, "x-auth-return-redirect": "1" },
      form: { csrfToken },
    })
    expect(returned.status).toBe(200)
    const { url } = JSON.parse(returned.body) as { url: string }
    expect(new URL(url).searchParams.get("redirect_uri")).toBe(`${PUBLIC}/auth/callback/corp`)
  })

  it("config.url pins the origin like AUTH_URL (Auth(), no Express): Host never read", async () => {
    const { config } = makeConfig({ url: `${PUBLIC}/auth`, trustHost: true })
    const res = await Auth(new Request(`http://${EVIL}/auth/signin`), config)
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain(`${PUBLIC}/auth/signin/corp`)
    expect(html).not.toContain(EVIL)
  })
})

describe("Host poisoning without AUTH_URL, in production: only allow-listed hosts", () => {
  const env = { AUTH_URL: undefined, AUTH_TRUST_HOST: undefined, NODE_ENV: "production" }

  it("an allow-listed Host gets links on that host", async () => {
    const app = await serve({ config: makeConfig({ trustHost: ["app.example.test"] }).config, env })
    const { signin, before } = await requestMagicLink(app, { host: "app.example.test" })
    expect(signin.location).toBe("http://app.example.test/auth/verify-request?provider=nodemailer&type=email")
    expect((await mailedLink(before)).origin).toBe("http://app.example.test")
  })

  it("Host: evil.test → UntrustedHost: nothing mailed, no redirect, no cookie, no link to the host", async () => {
    const { config, log } = makeConfig({ trustHost: ["app.example.test"] })
    const app = await serve({ config, env })
    const { csrf, signin, before } = await requestMagicLink(app, { host: EVIL })
    for (const res of [csrf, signin]) {
      expect(res.status).toBe(500)
      expect(res.location).toBeUndefined()
      expect(res.setCookies).toEqual([])
      expect(res.body).not.toContain(EVIL)
    }
    // the sign-in handler had returned: a mail it sent would be here already
    expect(smtp.messages).toHaveLength(before)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["UntrustedHost", "UntrustedHost"])

    const page = await app.send("/auth/signin", { headers: { host: EVIL } })
    expect(page.status).toBe(500)
    expect(page.headers["content-type"]).toMatch(/^text\/html/)
    expect(page.body).not.toContain(EVIL)
  })

  it("trust proxy + X-Forwarded-Host: evil.test → UntrustedHost; the allow-listed forwarded host works", async () => {
    const app = await serve({ config: makeConfig({ trustHost: ["app.example.test"] }).config, env, trustProxy: true })
    const bad = await app.send("/auth/signin/nodemailer", {
      headers: { host: "app.example.test", "x-forwarded-host": EVIL },
      form: { email: VICTIM },
    })
    expect(bad.status).toBe(500)
    expect(bad.location).toBeUndefined()
    const good = await app.send("/auth/signin", {
      headers: { host: "10.0.0.5", "x-forwarded-host": "app.example.test", "x-forwarded-proto": "https" },
    })
    expect(good.status).toBe(200)
    expect(good.body).toContain("https://app.example.test/auth/signin/corp")
  })

  it("getSession under an unallowed Host answers null, not an error", async () => {
    const app = await serve({ config: makeConfig({ trustHost: ["app.example.test"] }).config, env })
    const me = await app.send("/me", { headers: { host: EVIL } })
    expect(me.status).toBe(200)
    expect(JSON.parse(me.body)).toEqual({ session: null })
  })

  it("no AUTH_URL and no trustHost: UntrustedHost reported once, at the first request (as Auth.js), every request refused", async () => {
    const { config, log } = makeConfig()
    const app = await serve({ config, env })
    const { signin, before } = await requestMagicLink(app, { host: "app.example.test" })
    expect(signin.status).toBe(500)
    expect(smtp.messages).toHaveLength(before)
    const again = await requestMagicLink(app, { host: "app.example.test" })
    expect(again.signin.status).toBe(500)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["UntrustedHost"])
  })
})

describe("trustHost: true keeps Auth.js' behaviour (you vouch for your proxy)", () => {
  it("the request's Host becomes the origin, in production too", async () => {
    const app = await serve({ config: makeConfig({ trustHost: true }).config, env: { AUTH_URL: undefined, NODE_ENV: "production" } })
    const { signin, before } = await requestMagicLink(app, { host: "proxy-vouched.test" })
    expect(signin.location).toBe("http://proxy-vouched.test/auth/verify-request?provider=nodemailer&type=email")
    expect((await mailedLink(before)).origin).toBe("http://proxy-vouched.test")
  })

  it("without trust proxy, X-Forwarded-Host is never read", async () => {
    const app = await serve({ config: makeConfig({ trustHost: true }).config, env: { AUTH_URL: undefined } })
    const page = await app.send("/auth/signin", { headers: { host: "app.example.test", "x-forwarded-host": EVIL } })
    expect(page.status).toBe(200)
    expect(page.body).toContain("http://app.example.test/auth/signin/corp")
    expect(page.body).not.toContain(EVIL)
  })
})

describe("the allow-list", () => {
  it.each([
    ["app.example.test", "https://app.example.test/x", true],
    ["APP.example.test", "https://app.example.test/x", true],
    ["app.example.test", "https://app.example.test:8443/x", false],
    ["app.example.test:8443", "https://app.example.test:8443/x", true],
    ["app.example.test", "https://app.example.test.evil.test/x", false],
    ["app.example.test", "https://evil.test/app.example.test", false],
    ["*.example.test", "https://a.b.example.test/x", true],
    ["*.example.test", "https://example.test/x", false],
    ["*.example.test", "https://evilexample.test/x", false],
    ["https://app.example.test", "https://app.example.test/x", true],
    ["https://app.example.test", "http://app.example.test/x", false],
  ])("%s allows %s: %s", (entry, url, allowed) => {
    expect(hostAllowed(new URL(url), [entry.toLowerCase()])).toBe(allowed)
  })

  it("AUTH_TRUST_HOST takes true/false words or a comma-separated list of hosts", () => {
    const base = { providers: [] }
    expect(withEnvDefaults({ AUTH_TRUST_HOST: "app.example.test, *.example.org", NODE_ENV: "production" }, base).trustHost).toEqual([
      "app.example.test",
      "*.example.org",
    ])
    expect(withEnvDefaults({ AUTH_TRUST_HOST: "off", NODE_ENV: "development" }, base).trustHost).toBe(false)
    expect(withEnvDefaults({ AUTH_TRUST_HOST: "yes", NODE_ENV: "production" }, base).trustHost).toBe(true)
  })

  it("an AUTH_URL that is not an http(s) URL is a configuration error, not a silent fallback to Host", async () => {
    const { config, log } = makeConfig()
    const app = await serve({ config, env: { AUTH_URL: "javascript://app.example.test/auth" } })
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["UntrustedHost"])
    const res = await app.send("/auth/signin", { headers: { host: EVIL } })
    expect(res.status).toBe(500)
    expect(res.body).not.toContain(EVIL)
  })
})
