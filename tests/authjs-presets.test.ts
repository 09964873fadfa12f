/**
 * Every provider preset `@auth/core` 0.41 ships (the whole `@auth/core/providers` directory) works in
 * authchart unchanged, called (`GitHub({ … })`) and uncalled (`providers: [GitHub]`, options from
 * `AUTH_<ID>_*`):
 * - it loads, and `/providers` lists it exactly as Auth.js itself does;
 * - an OAuth / OIDC sign-in start redirects to its authorization endpoint with the preset's params;
 * - a preset that needs an issuer answers `InvalidEndpoints` (500, logged once) until one is set, and a
 *   preset that cannot be called without options (Nodemailer's `server`) answers `InvalidProvider`.
 *
 * No network: a preset whose endpoints come from discovery gets its discovery document from a stub
 * that answers only `.well-known` URLs, for the issuer under test, and records what was asked.
 */
import { readdirSync } from "node:fs"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Auth as AuthJs, type AuthConfig as AuthJsConfig } from "@auth/core"
import HubSpot from "@auth/core/providers/hubspot"
import express from "express"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig, type Provider } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { ExpressAuth, getSession } from "../src/integration/express.js"
import { ORIGIN, SECRET, AuthClient, captureLogger } from "./helpers.js"

const directory = join(dirname(createRequire(import.meta.url).resolve("@auth/core")), "providers")
const modules = readdirSync(directory)
  .filter((f) => f.endsWith(".js") && !["index.js", "oauth.js", "provider-types.js"].includes(f))
  .map((f) => f.slice(0, -3))

/** Options some presets cannot be called without (Auth.js cannot call them uncalled either). */
const REQUIRED_OPTIONS: Record<string, Record<string, unknown>> = {
  email: { server: "smtp://127.0.0.1:2525" },
  nodemailer: { server: "smtp://127.0.0.1:2525" },
}

type PresetFunction = (options: Record<string, unknown>) => Record<string, unknown> & { id: string; type: string }

/** The issuer a discovery request is answered for, and the discovery URLs asked. */
let discoveryIssuer = ""
const discoveryRequests: string[] = []
let guardedFetch: typeof fetch

beforeAll(() => {
  guardedFetch = globalThis.fetch
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url)
    if (!url.pathname.includes("/.well-known/")) return guardedFetch(input, init)
    discoveryRequests.push(url.href)
    const issuer = discoveryIssuer
    return Promise.resolve(
      Response.json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
      }),
    )
  }
})
afterAll(() => {
  globalThis.fetch = guardedFetch
})

function envKey(id: string): string {
  return id.toUpperCase().replace(/-/g, "_")
}

function configOf(provider: Provider, log: ReturnType<typeof captureLogger>): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    experimental: { enableWebAuthn: true },
    logger: log.logger,
    providers: [provider],
  }
}

/** The authorization URL a preset declares (string, or `{ url, params }`), or undefined when discovered. */
function declaredAuthorization(preset: Record<string, unknown>): URL | undefined {
  const authorization = preset.authorization as string | { url?: string; params?: Record<string, unknown> } | undefined
  if (typeof authorization === "string") return new URL(authorization)
  if (!authorization?.url) return undefined
  const url = new URL(authorization.url)
  for (const [key, value] of Object.entries(authorization.params ?? {})) {
    if (value !== undefined) url.searchParams.set(key, typeof value === "string" ? value : JSON.stringify(value))
  }
  return url
}

/** Params the sign-in start always sets itself, whatever the preset says. */
const OWN_PARAMS = new Set(["client_id", "redirect_uri", "response_type", "state", "nonce", "code_challenge", "code_challenge_method"])

interface Variant {
  readonly label: "called" | "uncalled"
  readonly provider: Provider
  readonly preset: Record<string, unknown> & { id: string; type: string }
}

/** Resolves the variant; an issuer-less preset must first answer InvalidEndpoints, then gets one. */
function variants(fn: PresetFunction, name: string): { withoutIssuer: Variant[]; withIssuer: (issuer: string) => Variant[] } {
  const required = REQUIRED_OPTIONS[name] ?? {}
  const make = (issuer?: string): Variant[] => {
    const called = fn({ clientId: "client-id", clientSecret: "client-secret", ...(issuer ? { issuer } : {}), ...required })
    const options = (called.options ?? {}) as Record<string, unknown>
    const preset = { ...called, ...options }
    return [
      { label: "called", provider: called as unknown as Provider, preset },
      { label: "uncalled", provider: fn as unknown as Provider, preset },
    ]
  }
  return { withoutIssuer: make(), withIssuer: make }
}

function callableWithoutOptions(fn: PresetFunction): boolean {
  try {
    fn({})
    return true
  } catch {
    return false
  }
}

async function answersConfigurationError(provider: Provider, type: string): Promise<Error[]> {
  const log = captureLogger()
  const config = configOf(provider, log)
  for (const path of ["/auth/providers", "/auth/session"]) {
    const response = await Auth(new Request(`${ORIGIN}${path}`), config)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ message: expect.stringContaining("server configuration") })
  }
  expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual([type])
  return log.errors
}

describe.each(modules)("@auth/core/providers/%s", (name) => {
  let fn: PresetFunction
  beforeAll(async () => {
    fn = ((await import(join(directory, `${name}.js`))) as { default: PresetFunction }).default
  })

  it("loads called and uncalled, is listed as Auth.js lists it, and a sign-in start reaches its authorization endpoint", async () => {
    const { withoutIssuer, withIssuer } = variants(fn, name)
    const first = withoutIssuer[0] as Variant
    const id = first.preset.id
    const issuer = `https://${id}.idp.test`
    let runs = withoutIssuer
    const log = captureLogger()
    const probe = await Auth(new Request(`${ORIGIN}/auth/providers`), configOf(first.provider, log))
    if (probe.status === 500 && (log.errors[0] as { type?: string }).type === "InvalidEndpoints") {
      // Needs an issuer: the documented configuration error until one is set (option or AUTH_<ID>_ISSUER).
      for (const variant of withoutIssuer) await answersConfigurationError(variant.provider, "InvalidEndpoints")
      runs = withIssuer(issuer)
    }
    if (!callableWithoutOptions(fn)) {
      // Auth.js cannot call it uncalled either (setEnvDefaults calls it with {} and throws): a
      // configuration error naming the preset, never a crash.
      const [error] = await answersConfigurationError(fn as unknown as Provider, "InvalidProvider")
      expect(error?.message).toBe(`The provider preset ${fn.name} threw when called with {}: pass it called, with the options it needs.`)
      runs = runs.filter((v) => v.label === "called")
    }
    for (const variant of runs) {
      vi.stubEnv(`AUTH_${envKey(id)}_ID`, "client-id")
      vi.stubEnv(`AUTH_${envKey(id)}_SECRET`, "client-secret")
      vi.stubEnv(`AUTH_${envKey(id)}_ISSUER`, runs === withoutIssuer ? undefined : issuer)
      vi.stubEnv(`AUTH_${envKey(id)}_KEY`, "api-key")
      try {
        await checkVariant(variant, name)
      } finally {
        vi.unstubAllEnvs()
      }
    }
  })
})

async function checkVariant(variant: Variant, name: string): Promise<void> {
  const { preset } = variant
  const log = captureLogger()
  const config = configOf(variant.provider, log)
  const client = new AuthClient(config)
  const listed = await client.send("/auth/providers")
  expect(log.errors, `${name} ${variant.label}: ${log.errors[0]?.message}`).toEqual([])
  expect(listed.status).toBe(200)
  const providers = (await listed.json()) as Record<string, unknown>
  if (variant.label === "called") {
    const authjs = await AuthJs(
      new Request(`${ORIGIN}/auth/providers`),
      configOf(variant.provider, captureLogger()) as unknown as Omit<AuthJsConfig, "raw">,
    )
    expect(providers).toEqual(await authjs.json())
  }
  expect(providers[preset.id]).toEqual({
    id: preset.id,
    name: preset.name,
    type: preset.type,
    signinUrl: `${ORIGIN}/auth/signin/${preset.id}`,
    callbackUrl: `${ORIGIN}/auth/callback/${preset.id}`,
  })
  if (preset.type !== "oauth" && preset.type !== "oidc") return

  const issuer = (preset.issuer as string | undefined) ?? ""
  discoveryIssuer = issuer
  discoveryRequests.length = 0
  const csrfToken = await client.csrf()
  const start = await client.send(`/auth/signin/${preset.id}`, { form: { csrfToken, callbackUrl: "/home" } })
  expect(log.errors, `${name} ${variant.label}: ${log.errors[0]?.message}`).toEqual([])
  expect(start.status).toBe(303)
  const location = new URL(start.headers.get("location") as string)
  const declared = declaredAuthorization(preset)
  const expected = declared ?? new URL(`${issuer}/authorize`)
  expect(`${location.origin}${location.pathname}`).toBe(`${expected.origin}${expected.pathname}`)
  if (!declared) {
    const wellKnown = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`
    expect(discoveryRequests).toEqual([(preset.wellKnown as string | undefined) ?? wellKnown])
  }
  for (const [key, value] of expected.searchParams) {
    if (!OWN_PARAMS.has(key)) expect(location.searchParams.get(key), `${name} param ${key}`).toBe(value)
  }
  expect(location.searchParams.get("client_id")).toBe("client-id")
  expect(location.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/${preset.id}`)
  expect(location.searchParams.get("response_type")).toBe("code")
}

describe("an uncalled Auth.js preset in an Express app", () => {
  it("serves the auth routes and getSession answers null, with no TypeError", async () => {
    vi.stubEnv("AUTH_HUBSPOT_ID", "hubspot-client")
    vi.stubEnv("AUTH_HUBSPOT_SECRET", "hubspot-secret")
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, logger: log.logger, providers: [HubSpot] }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/me", async (req, res) => void res.json(await getSession(req, config)))
    const server = app.listen(0, "127.0.0.1")
    await once(server, "listening")
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const me = await fetch(`${base}/me`)
      expect(me.status).toBe(200)
      expect(await me.json()).toBeNull()
      const providers = (await (await fetch(`${base}/auth/providers`)).json()) as Record<string, { type: string }>
      expect(providers.hubspot?.type).toBe("oauth")
      expect(log.errors).toEqual([])
    } finally {
      server.close()
      vi.unstubAllEnvs()
    }
  })
})
