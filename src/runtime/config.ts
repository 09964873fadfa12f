/**
 * Resolves an `AuthConfig` once into a frozen `ResolvedConfig`: env defaults, secrets, cookie sets,
 * providers, callbacks with defaults, flows, and the configuration error (if any), logged once.
 * Nothing here changes per request, and the user's object is never mutated.
 */
import {
  AuthError,
  DuplicateConditionalUI,
  ExperimentalFeatureNotEnabled,
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  UntrustedHost,
} from "../errors.js"
import type {
  AuthConfig,
  CallbacksOptions,
  CookiesOptions,
  EventCallbacks,
  LoggerInstance,
  PagesOptions,
  JWT,
  ProviderConfig,
  Session,
  Theme,
} from "../types.js"
import type { Adapter } from "../adapters/types.js"
import type { WebAuthnConfig } from "../providers/webauthn-types.js"
import { DATABASE_SESSION_METHODS, EMAIL_METHODS, OAUTH_LINKING_METHODS, WEBAUTHN_METHODS, missingMethods } from "./adapter.js"
import { defaultCookies, mergeCookies } from "./cookies.js"
import { mergeOptions } from "../providers/oauth.js"
import { type Env, withEnvDefaults } from "./env.js"
import type { FlowDefinition } from "./flow.js"
import { builtInFlows } from "./flows.js"
import { inspectorsOf } from "./inspect.js"
import { EXTRA_ACTIONS, type Route } from "./routes.js"
import { createLogger } from "./logger.js"
import { missingOptionalPeers } from "./optional-peers.js"
import { canServe, type OriginPolicy, originPolicy } from "./origin.js"
import { cookieFlowStore, type FlowStore } from "./store.js"
import { memoryServerState, type ServerState } from "./server-state.js"

/** Markers compared by identity, as in Auth.js. */
export const raw: unique symbol = Symbol("return-type-raw")
export const skipCSRFCheck: unique symbol = Symbol("skip-csrf-check")

export const MIN_SECRET_LENGTH = 32

export interface ResolvedProvider {
  readonly id: string
  readonly name: string
  readonly type: ProviderConfig["type"]
  readonly style?: Readonly<Record<string, string | undefined>>
  /** The provider object as configured (preset merged with user options, env applied). */
  readonly config: ProviderConfig
}

export interface ResolvedCallbacks {
  signIn: NonNullable<CallbacksOptions["signIn"]>
  redirect: NonNullable<CallbacksOptions["redirect"]>
  session: NonNullable<CallbacksOptions["session"]>
  jwt: NonNullable<CallbacksOptions["jwt"]>
}

export interface ResolvedConfig {
  readonly basePath: string
  readonly secrets: readonly string[]
  readonly providers: ReadonlyMap<string, ResolvedProvider>
  readonly session: {
    readonly strategy: "jwt" | "database"
    readonly maxAge: number
    readonly updateAge: number
    readonly generateSessionToken: () => string
    /** Milliseconds a user's "not before" moment is cached. */
    readonly revocationCacheMs: number
  }
  readonly jwt: {
    readonly maxAge: number
    readonly encode?: NonNullable<AuthConfig["jwt"]>["encode"]
    readonly decode?: NonNullable<AuthConfig["jwt"]>["decode"]
  }
  readonly pages: Readonly<PagesOptions>
  readonly callbacks: Readonly<ResolvedCallbacks>
  readonly customRedirect: boolean
  /** True when the app gave its own `session` callback. */
  readonly customSession: boolean
  readonly events: Readonly<EventCallbacks>
  readonly logger: LoggerInstance
  readonly theme: Readonly<Required<Theme>>
  readonly cookies: { readonly secure: CookiesOptions; readonly plain: CookiesOptions }
  readonly useSecureCookies: boolean | undefined
  /** True when some request can be served: a pinned URL, or hosts that may be trusted. */
  readonly trustHost: boolean
  /** How each request's origin is decided (`url`/`AUTH_URL`, `trustHost`). */
  readonly origin: OriginPolicy
  readonly skipCSRFCheck: boolean
  readonly raw: boolean
  readonly redirectProxyUrl: string | undefined
  readonly experimental: Readonly<{ enableWebAuthn: boolean }>
  readonly flowStore: FlowStore
  /** Single-use claims, attempt counts and revocations (one memory port per config by default). */
  readonly serverState: ServerState
  /** Flows by id: the built-ins, replaced or extended by `config.flows`. */
  readonly flows: ReadonlyMap<string, FlowDefinition>
  readonly flowTimeout: number
  /** Extra route rows from `config.routes`, and the actions they add. */
  readonly routes: readonly Route[]
  readonly extraActions: ReadonlySet<string>
  /** The inspection stream's receivers (none unless `inspect` is configured). */
  readonly inspectors: Readonly<ReturnType<typeof inspectorsOf>>
  readonly adapter: unknown
  /** The configuration error every request answers with, or null. Logged once at resolve time. */
  readonly configError: AuthError | null
}

/** The default redirect callback: same-origin URLs and paths only, everything else goes to the site. */
export function defaultRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  if (url.startsWith("/")) return `${baseUrl}${url}`
  try {
    if (new URL(url).origin === baseUrl) return url
  } catch {
    // not an absolute URL: fall back to the site
  }
  return baseUrl
}

function normalizeBasePath(path: string | undefined): string {
  const trimmed = (path ?? "/auth").replace(/\/+$/, "")
  if (trimmed === "") return ""
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

function resolveProviders(config: AuthConfig): { map: Map<string, ResolvedProvider>; error: AuthError | null } {
  const map = new Map<string, ResolvedProvider>()
  let error: AuthError | null = null
  for (const entry of config.providers) {
    const provider = typeof entry === "function" ? entry() : entry
    const options = (provider as { options?: Record<string, unknown> }).options
    const merged = mergeOptions(provider as object, (options ?? {}) as object) as ProviderConfig
    if (map.has(merged.id)) error ??= new InvalidProvider(`Two providers share the id "${merged.id}".`)
    map.set(merged.id, {
      id: merged.id,
      name: merged.name ?? merged.id,
      type: merged.type,
      style: (merged as { style?: Record<string, string> }).style,
      config: merged,
    })
  }
  return { map, error }
}

/** At most one WebAuthn provider offers conditional UI, and it has a field with `webauthn` autocomplete. */
function assertWebAuthn(providers: ReadonlyMap<string, ResolvedProvider>): AuthError | null {
  const conditional = [...providers.values()]
    .map((p) => p.config)
    .filter((c): c is WebAuthnConfig => c.type === "webauthn" && c.enableConditionalUI === true)
  if (conditional.length > 1) {
    return new DuplicateConditionalUI("Only one WebAuthn provider may set `enableConditionalUI`.")
  }
  const [provider] = conditional
  const fields = Object.values(provider?.formFields ?? {})
  if (provider && !fields.some((f) => String(f.autocomplete ?? "").includes("webauthn"))) {
    return new MissingWebAuthnAutocomplete(
      `Provider "${provider.id}" sets \`enableConditionalUI\`, but none of its formFields has "webauthn" in its autocomplete.`,
    )
  }
  return null
}

function assertConfig(config: AuthConfig, resolved: Omit<ResolvedConfig, "configError">): AuthError | null {
  if (!resolved.trustHost) {
    return new UntrustedHost(
      "The host is not trusted. Set `trustHost: true`, AUTH_TRUST_HOST=true or AUTH_URL in production.",
    )
  }
  if (resolved.secrets.length === 0) {
    return new MissingSecret(
      "Please define a `secret` (or AUTH_SECRET). Generate one with: openssl rand -base64 33",
    )
  }
  if (resolved.secrets.some((s) => s.length < MIN_SECRET_LENGTH)) {
    return new MissingSecret(
      `Every secret must be at least ${MIN_SECRET_LENGTH} characters long. Generate one with: openssl rand -base64 33`,
    )
  }
  for (const provider of resolved.providers.values()) {
    const p = provider.config as Record<string, unknown>
    if (provider.type === "credentials" && typeof p.authorize !== "function") {
      return new MissingAuthorize(`The credentials provider "${provider.id}" needs an \`authorize\` function.`)
    }
    if ((provider.type === "oauth" || provider.type === "oidc") && !p.issuer) {
      const missing = ["authorization", "token", "userinfo"].filter((k) => !p[k])
      if (missing.length > 0) {
        return new InvalidEndpoints(`Provider "${provider.id}" has no issuer and lacks: ${missing.join(", ")}.`)
      }
    }
    if (provider.type === "webauthn" && !resolved.experimental.enableWebAuthn) {
      return new ExperimentalFeatureNotEnabled("WebAuthn is experimental: set `experimental.enableWebAuthn: true`.")
    }
  }
  const webauthnError = assertWebAuthn(resolved.providers)
  if (webauthnError) return webauthnError
  const hasEmail = [...resolved.providers.values()].some((p) => p.type === "email")
  if (hasEmail && !config.adapter && !resolved.flowStore.tokens) {
    return new MissingAdapter("Email sign-in needs an adapter, or a flow store that keeps tokens (RedisFlowStore).")
  }
  const hasWebAuthn = [...resolved.providers.values()].some((p) => p.type === "webauthn")
  if (hasWebAuthn && !config.adapter) {
    return new MissingAdapter("WebAuthn needs an adapter to keep users and passkeys.")
  }
  if (config.session?.strategy === "database" && !config.adapter) {
    return new MissingAdapter("The database session strategy needs an adapter.")
  }
  const adapter = config.adapter as Adapter | undefined
  if (adapter) {
    const required = new Set<string>()
    if (resolved.session.strategy === "database") DATABASE_SESSION_METHODS.forEach((m) => required.add(m))
    const types = [...resolved.providers.values()].map((p) => p.type)
    if (types.includes("oauth") || types.includes("oidc")) OAUTH_LINKING_METHODS.forEach((m) => required.add(m))
    if (types.includes("email")) EMAIL_METHODS.forEach((m) => required.add(m))
    if (types.includes("webauthn")) WEBAUTHN_METHODS.forEach((m) => required.add(m))
    const missing = missingMethods(adapter, required)
    if (missing.length > 0) {
      return new MissingAdapterMethods(`The adapter lacks methods the enabled flows call: ${missing.join(", ")}.`)
    }
  }
  return null
}

/**
 * Resolves a config against an environment. Call once; the result is frozen.
 * The configuration error, if any, is logged here, once.
 */
export function resolveConfig(input: AuthConfig, env: Env): ResolvedConfig {
  const logger = createLogger(input.logger, !!input.debug)
  const config = withEnvDefaults(env, input, logger)
  if (config.debug) logger.warn("debug-enabled")
  const { map: providers, error: providerError } = resolveProviders(config)
  const { policy: origin, error: originError } = originPolicy(config, input, env)
  const secret = config.secret
  const secrets = Object.freeze(secret === undefined ? [] : Array.isArray(secret) ? [...secret] : [secret])
  const maxAge = config.session?.maxAge ?? 30 * 24 * 60 * 60
  const callbacks = config.callbacks ?? {}
  const flows = new Map(builtInFlows.map((f) => [f.id, f] as const))
  for (const flow of config.flows ?? []) flows.set(flow.id, flow)
  const cookiesFor = (secure: boolean) => Object.freeze(mergeCookies(defaultCookies(secure), config.cookies))
  const base: Omit<ResolvedConfig, "configError"> = {
    basePath: normalizeBasePath(config.basePath),
    secrets,
    providers,
    session: Object.freeze({
      strategy: config.session?.strategy ?? (config.adapter ? "database" : "jwt"),
      maxAge,
      updateAge: config.session?.updateAge ?? 24 * 60 * 60,
      generateSessionToken: config.session?.generateSessionToken ?? (() => crypto.randomUUID()),
      revocationCacheMs: Math.max(0, config.session?.revocationCacheTtl ?? 5) * 1000,
    }),
    jwt: Object.freeze({ maxAge: config.jwt?.maxAge ?? maxAge, encode: config.jwt?.encode, decode: config.jwt?.decode }),
    pages: Object.freeze({ ...(config.pages ?? {}) }),
    callbacks: Object.freeze({
      signIn: callbacks.signIn ?? (() => true),
      redirect: callbacks.redirect ?? defaultRedirect,
      session: callbacks.session ?? (({ session }: { session: Session }) => session),
      jwt: callbacks.jwt ?? (({ token }: { token: JWT }) => token),
    }),
    customRedirect: callbacks.redirect !== undefined,
    customSession: callbacks.session !== undefined,
    events: Object.freeze({ ...(config.events ?? {}) }),
    logger,
    theme: Object.freeze({ colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...(config.theme ?? {}) }),
    cookies: Object.freeze({ secure: cookiesFor(true), plain: cookiesFor(false) }),
    useSecureCookies: config.useSecureCookies,
    trustHost: canServe(origin),
    origin,
    skipCSRFCheck: config.skipCSRFCheck === skipCSRFCheck,
    raw: config.raw === raw,
    redirectProxyUrl: config.redirectProxyUrl,
    experimental: Object.freeze({ enableWebAuthn: !!config.experimental?.enableWebAuthn }),
    flowStore: config.flowStore ?? cookieFlowStore(),
    serverState: config.serverState ?? memoryServerState(),
    flows,
    flowTimeout: config.flowTimeout ?? 15_000,
    inspectors: Object.freeze(inspectorsOf(config.inspect)),
    routes: Object.freeze([...(config.routes ?? [])]),
    extraActions: new Set([...EXTRA_ACTIONS, ...(config.routes ?? []).map((r) => r.action)]),
    adapter: config.adapter,
  }
  const configError = originError ?? providerError ?? assertConfig(config, base) ?? missingOptionalPeers(providers.values())
  if (configError) logger.error(configError)
  if (base.skipCSRFCheck) logger.warn("csrf-disabled")
  if (base.experimental.enableWebAuthn) logger.warn("experimental-webauthn")
  return Object.freeze({ ...base, configError })
}

const cache = new WeakMap<AuthConfig, ResolvedConfig>()

/** The resolved config for `config`, computed on first use and reused after (keyed by identity). */
export function resolvedFor(config: AuthConfig, env: Env = process.env): ResolvedConfig {
  let resolved = cache.get(config)
  if (!resolved) {
    resolved = resolveConfig(config, env)
    cache.set(config, resolved)
  }
  return resolved
}
