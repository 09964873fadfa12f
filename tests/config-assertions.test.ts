/**
 * Start-up validation as Auth.js' `assertConfig`: each broken configuration is answered with its error
 * type on every request (500 JSON on API routes, logged once), and the logged message is Auth.js' own
 * text, word for word (the default logger prints authchart's hint on a line of its own). Each scenario also runs through
 * `@auth/core` itself to show it is the same assertion there.
 *
 * Auth.js keeps module-level flags in `assertConfig` that leak from one config to the next (a WebAuthn
 * or email provider once seen is assumed in every later config), so the Auth.js side runs the
 * scenarios in an order where those leaks cannot change the outcome: WebAuthn, then email, last.
 */
import { Auth as AuthJs, type AuthConfig as AuthJsConfig } from "@auth/core"
import AuthJsCredentials from "@auth/core/providers/credentials"
import Frontegg from "@auth/core/providers/frontegg"
import AuthJsPasskey from "@auth/core/providers/passkey"
import { describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import GitHub from "../src/providers/github.js"
import Nodemailer from "../src/providers/nodemailer.js"
import { AuthError } from "../src/errors.js"
import { configHint } from "../src/runtime/config/hints.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const oauth = (extra: Record<string, unknown>) => ({ id: "acme", name: "Acme", type: "oauth" as const, clientId: "id", ...extra })
const credentialsWithoutAuthorize = { id: "credentials", name: "Credentials", type: "credentials" as const, credentials: {} }
const webauthn = (id: string, formFields: Record<string, { label: string; autocomplete?: string }>) => ({
  ...AuthJsPasskey({}),
  id,
  enableConditionalUI: true,
  formFields,
})

interface Scenario {
  name: string
  config: Partial<AuthConfig>
  type: string
  /** authchart's whole message: Auth.js' own where Auth.js has the check. */
  message: string
  /** Auth.js' message without its "Read more" link. */
  authjs: string
}

const scenarios: Scenario[] = [
  {
    name: "an untrusted host",
    config: { trustHost: false },
    type: "UntrustedHost",
    message: `Host must be trusted. URL was: ${ORIGIN}/auth/session`,
    authjs: "Host must be trusted.",
  },
  {
    name: "no secret",
    config: { secret: undefined },
    type: "MissingSecret",
    message: "Please define a `secret`",
    authjs: "Please define a `secret`",
  },
  {
    name: "an OAuth provider whose userinfo is an object without url, and no issuer",
    config: {
      providers: [oauth({ authorization: "https://acme.test/authorize", token: "https://acme.test/token", userinfo: { foo: "bar" } })],
    },
    type: "InvalidEndpoints",
    message: 'Provider "acme" is missing both `issuer` and `userinfo` endpoint config. At least one of them is required',
    authjs: 'Provider "acme" is missing both `issuer` and `userinfo` endpoint config. At least one of them is required',
  },
  {
    name: "an OAuth provider with neither issuer nor authorization endpoint",
    config: { providers: [oauth({ token: "https://acme.test/token", userinfo: "https://acme.test/me" })] },
    type: "InvalidEndpoints",
    message: 'Provider "acme" is missing both `issuer` and `authorization` endpoint config. At least one of them is required',
    authjs: 'Provider "acme" is missing both `issuer` and `authorization` endpoint config. At least one of them is required',
  },
  {
    name: "a credentials provider without authorize",
    config: { providers: [credentialsWithoutAuthorize] },
    type: "MissingAuthorize",
    message: "Must define an authorize() handler to use credentials authentication provider",
    authjs: "Must define an authorize() handler to use credentials authentication provider",
  },
  {
    name: "only credentials with the database strategy, not opted in",
    config: { providers: [AuthJsCredentials({})], adapter: MemoryAdapter(), session: { strategy: "database" } },
    type: "UnsupportedStrategy",
    message: "Signing in with credentials only supported if JWT strategy is enabled",
    authjs: "Signing in with credentials only supported if JWT strategy is enabled",
  },
  {
    name: "the database strategy without an adapter",
    config: { providers: [GitHub()], session: { strategy: "database" } },
    type: "MissingAdapter",
    message: "Database session requires an adapter",
    authjs: "Database session requires an adapter",
  },
  {
    name: "an adapter without the session methods",
    config: { providers: [GitHub()], adapter: { getUser: () => null }, session: { strategy: "database" } },
    type: "MissingAdapterMethods",
    message:
      "Required adapter methods were missing: createUser, getUserByEmail, getUserByAccount, updateUser, linkAccount, createSession, getSessionAndUser, updateSession, deleteSession. The enabled flows call them; add them to the adapter or turn the flow off.",
    authjs:
      "Required adapter methods were missing: createUser, getUserByEmail, getUserByAccount, updateUser, linkAccount, createSession, getSessionAndUser, updateSession, deleteSession",
  },
  {
    name: "two WebAuthn providers with conditional UI",
    config: {
      providers: [
        webauthn("passkey", { email: { label: "Email", autocomplete: "username webauthn" } }),
        webauthn("passkey2", { email: { label: "Email", autocomplete: "username webauthn" } }),
      ],
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
    },
    type: "DuplicateConditionalUI",
    message: "Multiple webauthn providers have 'enableConditionalUI' set to True. Only one provider can have this option enabled at a time",
    authjs: "Multiple webauthn providers have 'enableConditionalUI' set to True. Only one provider can have this option enabled at a time",
  },
  {
    name: "conditional UI without a webauthn autocomplete field",
    config: {
      providers: [webauthn("passkey", { email: { label: "Email", autocomplete: "email" } })],
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
    },
    type: "MissingWebAuthnAutocomplete",
    message:
      "Provider \"passkey\" has 'enableConditionalUI' set to True, but none of its formFields have 'webauthn' in their autocomplete param",
    authjs:
      "Provider \"passkey\" has 'enableConditionalUI' set to True, but none of its formFields have 'webauthn' in their autocomplete param",
  },
  {
    name: "WebAuthn with an adapter but without the experimental flag",
    config: { providers: [AuthJsPasskey({})], adapter: MemoryAdapter() },
    type: "ExperimentalFeatureNotEnabled",
    message: "WebAuthn is an experimental feature. To enable it, set `experimental.enableWebAuthn` to `true` in your config",
    authjs: "WebAuthn is an experimental feature. To enable it, set `experimental.enableWebAuthn` to `true` in your config",
  },
  {
    name: "WebAuthn without an adapter",
    config: { providers: [AuthJsPasskey({})], experimental: { enableWebAuthn: true } },
    type: "MissingAdapter",
    message: "WebAuthn requires an adapter",
    authjs: "WebAuthn requires an adapter",
  },
  {
    name: "email without an adapter or a token-keeping flow store",
    config: { providers: [Nodemailer({ server: "smtp://127.0.0.1:2525" })] },
    type: "MissingAdapter",
    message: "Email login requires an adapter",
    authjs: "Email login requires an adapter",
  },
]

function configWith(extra: Partial<AuthConfig>, log: ReturnType<typeof captureLogger>): AuthConfig {
  return { secret: SECRET, trustHost: true, providers: [GitHub()], logger: log.logger, ...extra }
}

// Runs first: Auth.js' leaking flags (see above) are still clear.
describe("where authchart checks more than Auth.js (differs on purpose)", () => {
  it("an endpoint URL that does not parse (a preset missing its issuer) is InvalidEndpoints at start-up; Auth.js fails each request with a TypeError", async () => {
    const preset = Frontegg({ clientId: "id", clientSecret: "secret" })
    const log = captureLogger()
    const client = new AuthClient(configWith({ providers: [preset] }, log))
    expect((await client.send("/auth/session")).status).toBe(500)
    expect((await client.send("/auth/providers")).status).toBe(500)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["InvalidEndpoints"])
    expect(log.errors[0]?.message).toBe(
      'Provider "frontegg" has an invalid `authorization` URL: "undefined/oauth/authorize". Give an absolute https URL; a preset that builds its URLs from `issuer` needs `issuer` (or AUTH_FRONTEGG_ISSUER).',
    )

    const authjsLog = captureLogger()
    const authjs = { ...configWith({ providers: [preset] }, authjsLog) } as unknown as Omit<AuthJsConfig, "raw">
    for (const path of ["/auth/session", "/auth/providers"]) {
      const response = await AuthJs(new Request(`${ORIGIN}${path}`), authjs)
      expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    }
    expect(authjsLog.errors.map((e) => `${e.name}: ${e.message}`)).toEqual(["TypeError: Invalid URL", "TypeError: Invalid URL"])
  })

  it("with session.allowCredentials, credentials alone get database sessions; Auth.js refuses the config", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "u-1", name: "Cee", email: "cee@example.test", emailVerified: null })
    const log = captureLogger()
    const authorize = () => ({ id: "u-1", name: "Cee", email: "cee@example.test" })
    const client = new AuthClient(
      configWith(
        { providers: [AuthJsCredentials({ authorize })], adapter, session: { strategy: "database", allowCredentials: true } },
        log,
      ),
    )
    const csrfToken = await client.csrf()
    const signIn = await client.send("/auth/callback/credentials", { form: { csrfToken } })
    expect(signIn.status).toBe(303)
    const token = client.jar.get("authjs.session-token") as string
    expect((await adapter.getSessionAndUser(token))?.user.id).toBe("u-1")
    expect(log.errors).toEqual([])

    const authjsLog = captureLogger()
    const authjs = configWith({ providers: [AuthJsCredentials({ authorize })], adapter, session: { strategy: "database" } }, authjsLog)
    expect((await AuthJs(new Request(`${ORIGIN}/auth/session`), authjs as unknown as Omit<AuthJsConfig, "raw">)).status).toBe(500)
    expect((authjsLog.errors[0] as { type?: string }).type).toBe("UnsupportedStrategy")
  })
})

describe.each(scenarios)("configuration error: $name", (scenario) => {
  it(`is ${scenario.type} on every request, logged once, with Auth.js' message and a hint`, async () => {
    const log = captureLogger()
    const client = new AuthClient(configWith(scenario.config, log))
    for (const path of ["/auth/session", "/auth/providers", "/auth/csrf"]) {
      const response = await client.send(path)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        message: "There was a problem with the server configuration. Check the server logs for more information.",
      })
    }
    expect((await client.send("/auth/signin")).status).toBe(500)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual([scenario.type])
    expect(log.errors[0]?.message).toBe(scenario.message)
    expect(scenario.message.startsWith(scenario.authjs)).toBe(true)
    const error = log.errors[0]
    // these two messages say how to fix them already
    if (scenario.type !== "MissingAdapterMethods" && scenario.type !== "ExperimentalFeatureNotEnabled") {
      expect(error instanceof AuthError && configHint(error)).toMatch(/\S/)
    }
  })

  it("is the same assertion in Auth.js", async () => {
    const log = captureLogger()
    const response = await AuthJs(
      new Request(`${ORIGIN}/auth/session`),
      configWith(scenario.config, log) as unknown as Omit<AuthJsConfig, "raw">,
    )
    expect(response.status).toBe(500)
    expect((log.errors[0] as { type?: string }).type).toBe(scenario.type)
    expect(log.errors[0]?.message.replace(/\.? ?Read more at https:\/\/errors\.authjs\.dev#\w+$/, "")).toMatch(
      new RegExp(`^${scenario.authjs.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    )
  })
})

it("the default logger prints Auth.js' message, then how to fix it on an [auth][help] line", async () => {
  const lines: string[] = []
  const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")))
  try {
    const client = new AuthClient({ secret: undefined, trustHost: true, providers: [GitHub()] })
    expect((await client.send("/auth/session")).status).toBe(500)
  } finally {
    spy.mockRestore()
  }
  const plain = lines.map((line) => line.replace(/\x1b\[\d+m/g, ""))
  expect(plain).toEqual([
    "[auth][error] MissingSecret: Please define a `secret`",
    "[auth][help] Set AUTH_SECRET (or `secret`) to 32+ random characters. Generate one with: openssl rand -base64 33",
  ])
})
