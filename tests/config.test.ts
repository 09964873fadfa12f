/**
 * Configuration: env defaults, secrets, trust, action URLs, and the answers while config is broken.
 */
import { describe, expect, it } from "vitest"
import { createActionURL, isAuthAction, setEnvDefaults } from "../src/index.js"
import type { AuthConfig } from "../src/index.js"
import { resolveConfig } from "../src/runtime/front/resolve.js"
import { withEnvDefaults } from "../src/runtime/config/env.js"
import Credentials from "../src/providers/credentials.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const base = (): AuthConfig => ({ providers: [Credentials({ authorize: () => null })] })

describe("setEnvDefaults / withEnvDefaults", () => {
  it("orders secrets newest first: AUTH_SECRET_3, _2, _1, AUTH_SECRET", () => {
    const config = base()
    setEnvDefaults({ AUTH_SECRET: "s", AUTH_SECRET_1: "s1", AUTH_SECRET_3: "s3" }, config)
    expect(config.secret).toEqual(["s3", "s1", "s"])
  })

  it("keeps an explicit secret", () => {
    expect(withEnvDefaults({ AUTH_SECRET: "env" }, { ...base(), secret: "mine" }).secret).toBe("mine")
  })

  it.each([
    [{ AUTH_URL: "https://x.test/api/auth" }, "/api/auth"],
    [{ AUTH_URL: "https://x.test" }, "/auth"],
    [{ AUTH_URL: "https://x.test/" }, "/auth"],
    [{}, "/auth"],
  ])("basePath from %j is %s", (env, basePath) => {
    expect(withEnvDefaults(env, base()).basePath).toBe(basePath)
  })

  it.each([
    [{ AUTH_TRUST_HOST: "true", NODE_ENV: "production" }, true],
    [{ AUTH_TRUST_HOST: "false" }, false],
    [{ AUTH_TRUST_HOST: "0" }, false],
    [{ NODE_ENV: "production" }, false],
    [{ NODE_ENV: "production", AUTH_URL: "https://x.test" }, true],
    [{ NODE_ENV: "development" }, true],
    [{ NODE_ENV: "production", VERCEL: "1" }, true],
  ])("trustHost from %j is %s", (env, trusted) => {
    expect(withEnvDefaults(env, base()).trustHost).toBe(trusted)
  })

  it("reads AUTH_<ID>_ID/_SECRET/_ISSUER for OAuth providers and calls function providers", () => {
    const config = withEnvDefaults(
      { AUTH_MY_IDP_ID: "cid", AUTH_MY_IDP_SECRET: "csecret", AUTH_MY_IDP_ISSUER: "https://idp.test" },
      { providers: [{ id: "my-idp", name: "IdP", type: "oidc" }] },
    )
    expect(config.providers[0]).toMatchObject({ clientId: "cid", clientSecret: "csecret", issuer: "https://idp.test" })
    expect(withEnvDefaults({ AUTH_REDIRECT_PROXY_URL: "https://p.test/auth" }, base()).redirectProxyUrl).toBe("https://p.test/auth")
  })

  it("never mutates the config it resolves", () => {
    const config = base()
    const frozen = JSON.stringify(config)
    resolveConfig(config, { AUTH_SECRET: SECRET })
    expect(JSON.stringify(config)).toBe(frozen)
  })
})

describe("createActionURL and isAuthAction", () => {
  it.each([
    [{}, "https", { host: "a.test" }, "/auth", "https://a.test/auth/signin"],
    [{}, "http", { host: "a.test", "x-forwarded-proto": "https", "x-forwarded-host": "b.test" }, "/auth", "https://b.test/auth/signin"],
    [{ AUTH_URL: "https://c.test/api/auth" }, "http", { host: "a.test" }, undefined, "https://c.test/api/auth/signin"],
    [{ AUTH_URL: "https://c.test" }, "http", { host: "a.test" }, "/auth", "https://c.test/auth/signin"],
    [{ AUTH_URL: "https://c.test/x" }, "http", { host: "a.test" }, "/auth", "https://c.test/auth/signin"],
    [{}, "https", { host: "a.test" }, "/", "https://a.test/signin"],
  ])("env %j proto %s headers %j basePath %s → %s", (env, proto, headers, basePath, expected) => {
    const url = createActionURL("signin", proto, new Headers(headers), env, basePath === undefined ? {} : { basePath })
    expect(url.href).toBe(expected)
  })

  it("knows the nine actions", () => {
    expect(
      ["providers", "session", "csrf", "signin", "signout", "callback", "verify-request", "error", "webauthn-options"].every(isAuthAction),
    ).toBe(true)
    expect(isAuthAction("signup")).toBe(false)
  })
})

describe("configuration errors", () => {
  function broken(extra: Partial<AuthConfig>) {
    const log = captureLogger()
    const config: AuthConfig = { ...base(), trustHost: true, logger: log.logger, ...extra }
    return { client: new AuthClient(config), log }
  }

  it("a missing secret is MissingSecret, logged once, 500 JSON on API routes", async () => {
    const previous = process.env.AUTH_SECRET
    delete process.env.AUTH_SECRET
    try {
      const { client, log } = broken({})
      for (let i = 0; i < 3; i++) {
        const res = await client.send("/auth/session")
        expect(res.status).toBe(500)
        expect(await res.json()).toEqual({
          message: "There was a problem with the server configuration. Check the server logs for more information.",
        })
      }
      expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingSecret"])
    } finally {
      if (previous !== undefined) process.env.AUTH_SECRET = previous
    }
  })

  it("a short secret says how to generate one", async () => {
    const { client, log } = broken({ secret: "short" })
    expect((await client.send("/auth/csrf")).status).toBe(500)
    expect(log.errors[0]?.message).toContain("at least 32 characters")
    expect(log.errors[0]?.message).toContain("openssl rand")
    expect(log.errors[0]?.message).not.toContain("short")
  })

  it("an old short secret in a rotation list is refused too", async () => {
    const { client, log } = broken({ secret: [SECRET, "old"] })
    await client.send("/auth/session")
    expect((log.errors[0] as { type?: string }).type).toBe("MissingSecret")
  })

  it("an untrusted host is UntrustedHost", async () => {
    const { client, log } = broken({ secret: SECRET, trustHost: false })
    expect((await client.send("/auth/session")).status).toBe(500)
    expect((log.errors[0] as { type?: string }).type).toBe("UntrustedHost")
  })

  it("page actions render the 500 error page, or redirect to pages.error", async () => {
    const { client } = broken({ secret: "short" })
    const page = await client.send("/auth/signin")
    expect(page.status).toBe(500)
    expect(page.headers.get("content-type")).toContain("text/html")
    const custom = broken({ secret: "short", pages: { error: "/oops" } }).client
    const res = await custom.send("/auth/signin")
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/oops?error=Configuration`)
    const loop = await custom.send("/auth/error?callbackUrl=%2Foops")
    expect(loop.status).toBe(500)
  })

  it("credentials without authorize is MissingAuthorize", async () => {
    const { client, log } = broken({
      secret: SECRET,
      providers: [{ id: "c", name: "C", type: "credentials" } as unknown as AuthConfig["providers"][number]],
    })
    await client.send("/auth/session")
    expect((log.errors[0] as { type?: string }).type).toBe("MissingAuthorize")
  })

  it("a WebAuthn provider without the experimental flag is ExperimentalFeatureNotEnabled", async () => {
    const { client, log } = broken({ secret: SECRET, providers: [{ id: "webauthn", name: "WebAuthn", type: "webauthn" }] })
    await client.send("/auth/session")
    expect((log.errors[0] as { type?: string }).type).toBe("ExperimentalFeatureNotEnabled")
  })

  it("two configs in one process never share state", async () => {
    const a = broken({ secret: SECRET })
    const b = broken({ secret: "short" })
    expect((await a.client.send("/auth/session")).status).toBe(200)
    expect((await b.client.send("/auth/session")).status).toBe(500)
    expect((await a.client.send("/auth/session")).status).toBe(200)
    expect(a.log.errors).toHaveLength(0)
  })
})
