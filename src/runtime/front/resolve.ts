/**
 * Resolves an `AuthConfig` once into a frozen `ResolvedConfig`: env defaults, secrets, cookie sets,
 * providers, callbacks with defaults, flows, and the configuration error (if any), logged once.
 * Nothing here changes per request, and the user's object is never mutated.
 */
import { type AuthError, InvalidProvider, UntrustedHost } from "../../errors.js"
import { defaultRedirect } from "../http/callback-url.js"
import type { AuthConfig, LoggerInstance, JWT, ProviderConfig, ProviderLike, Session } from "../../types.js"
import { assertConfig } from "./assert.js"

export { MIN_SECRET_LENGTH } from "./assert.js"
import { defaultCookies, mergeCookies } from "../http/cookies.js"
import { mergeOptions } from "../../providers/oauth.js"
import { type Env, withEnvDefaults } from "../config/env.js"
import { builtInFlows } from "../engine/built-in-flows.js"
import { inspectorsOf } from "../engine/inspection.js"
import { routes as runtimeRoutes } from "./routes.js"
import { buildRouteTable } from "./route-table.js"
import { createLogger } from "../config/logger.js"
import { missingOptionalPeers } from "./optional-peers.js"
import { canServe, originPolicy } from "../http/origin.js"
import { reportUntrustedHostLater } from "../http/request.js"
import { cookieFlowStore } from "../engine/store.js"
import { memoryServerState } from "../limits/server-state-memory.js"
import { resolveRateLimit } from "../limits/rules.js"
import { resolveLogout } from "../sessions/logout/options.js"
import { resolveProviderTokens } from "../sessions/tokens/options.js"
import type { ResolvedProvider, ResolvedCallbacks, ResolvedConfig } from "../../types/resolved.js"
export type { ResolvedProvider, ResolvedCallbacks, ResolvedConfig }
import { resolveLanguages } from "../http/language.js"

/** Markers compared by identity, as in Auth.js (whose own markers, same descriptions, count too). */
export const raw: unique symbol = Symbol("return-type-raw")
/** Put in `config.skipCSRFCheck` to turn the CSRF checks off, only behind CSRF protection of your own (as in Auth.js). */
export const skipCSRFCheck: unique symbol = Symbol("skip-csrf-check")

/** `value` is `marker`, or the `@auth/core` export of the same name (a local symbol, same description). */
function isMarker(value: unknown, marker: symbol): boolean {
  return value === marker || (typeof value === "symbol" && value.description === marker.description && Symbol.keyFor(value) === undefined)
}

function normalizeBasePath(path: string | undefined): string {
  const trimmed = (path ?? "/auth").replace(/\/+$/, "")
  if (trimmed === "") return ""
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

function resolveProviders(entries: readonly (ProviderConfig | ProviderLike)[]): {
  map: Map<string, ResolvedProvider>
  error: AuthError | null
} {
  const map = new Map<string, ResolvedProvider>()
  let error: AuthError | null = null
  for (const provider of entries) {
    const options = (provider as { options?: Record<string, unknown> }).options
    const merged = mergeOptions(provider as object, (options ?? {}) as object) as ProviderConfig
    if (map.has(merged.id)) error ??= new InvalidProvider(`Two providers share the id "${merged.id}".`)
    map.set(merged.id, resolvedProvider(merged))
  }
  return { map, error }
}

/** A provider as the runtime holds it: its `type` beside the config of that type, so one narrows the other. */
function resolvedProvider(config: ProviderConfig): ResolvedProvider {
  const base = { id: config.id, name: config.name ?? config.id, style: (config as { style?: Record<string, string> }).style }
  switch (config.type) {
    case "oauth":
      return { ...base, type: config.type, config }
    case "oidc":
      return { ...base, type: config.type, config }
    case "credentials":
      return { ...base, type: config.type, config }
    case "email":
      return { ...base, type: config.type, config }
    case "webauthn":
      return { ...base, type: config.type, config }
    default:
      // a type of its own (a kit flow's provider, e.g. "email-code"), kept as it is: only its own flow,
      // which names it, reads its config (with a type guard, `flowProviderConfig`)
      return { ...base, type: Reflect.get(config, "type"), config }
  }
}

/**
 * The config with its environment defaults. A preset function that throws when called (Auth.js'
 * Nodemailer without a `server`, say) is a configuration error, not a crash: the rest still resolves.
 */
function loadConfig(env: Env, input: AuthConfig, logger: LoggerInstance) {
  try {
    return { config: withEnvDefaults(env, input, logger), presetError: null }
  } catch (err) {
    if (!(err instanceof InvalidProvider)) throw err
    return { config: withEnvDefaults(env, { ...input, providers: [] }, logger), presetError: err }
  }
}

/**
 * Resolves a config against an environment. Call once; the result is frozen.
 * The configuration error, if any, is logged here, once.
 */
export function resolveConfig(input: AuthConfig, env: Env): ResolvedConfig {
  const logger = createLogger(input.logger, !!input.debug)
  const { config, presetError } = loadConfig(env, input, logger)
  if (config.debug) logger.warn("debug-enabled")
  const resolvedProviders = resolveProviders(config.providers)
  const { map: providers } = resolvedProviders
  const providerError = presetError ?? resolvedProviders.error
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
      lastSeenMs: Math.max(0, config.session?.lastSeenInterval ?? 300) * 1000,
    }),
    jwt: Object.freeze({ maxAge: config.jwt?.maxAge ?? maxAge, encode: config.jwt?.encode, decode: config.jwt?.decode }),
    pages: Object.freeze({ ...(config.pages ?? {}) }),
    languages: resolveLanguages(config.pages),
    callbacks: Object.freeze({
      signIn: callbacks.signIn ?? (() => true),
      redirect: callbacks.redirect ?? defaultRedirect,
      session: callbacks.session ?? (({ session }: { session: Session }) => session),
      jwt: callbacks.jwt ?? (({ token }: { token: JWT }) => token),
    }),
    customRedirect: callbacks.redirect !== undefined,
    customSession: callbacks.session !== undefined,
    customJwt: callbacks.jwt !== undefined,
    events: Object.freeze({ ...(config.events ?? {}) }),
    logger,
    theme: Object.freeze({ colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...(config.theme ?? {}) }),
    cookies: Object.freeze({ secure: cookiesFor(true), plain: cookiesFor(false) }),
    useSecureCookies: config.useSecureCookies,
    trustHost: canServe(origin),
    origin,
    skipCSRFCheck: isMarker(config.skipCSRFCheck, skipCSRFCheck),
    raw: isMarker(config.raw, raw),
    redirectProxyUrl: config.redirectProxyUrl,
    experimental: Object.freeze({ enableWebAuthn: !!config.experimental?.enableWebAuthn }),
    flowStore: config.flowStore ?? cookieFlowStore(),
    serverState: config.serverState ?? memoryServerState(),
    providerTokens: resolveProviderTokens(config.session?.providerTokens),
    rateLimit: resolveRateLimit(config.rateLimit, env),
    flows,
    flowTimeout: config.flowTimeout ?? 15_000,
    inspectors: Object.freeze(inspectorsOf(config.inspect)),
    routing: buildRouteTable(runtimeRoutes, config.routes ?? [], providers.values(), flows),
    adapter: config.adapter,
    logout: resolveLogout(config.logout),
    accounts: Object.freeze({ ...(config.accounts ?? {}) }),
    factors: Object.freeze({ freshFor: config.factors?.freshFor ?? 300, issuer: config.factors?.issuer }),
  }
  const configError =
    originError ?? providerError ?? assertConfig(config, base) ?? missingOptionalPeers(providers.values(), undefined, flows)
  // no trusted origin at all: logged at the first request, with its URL, as Auth.js words it
  const untrusted = configError instanceof UntrustedHost && !originError
  if (configError && !untrusted) logger.error(configError)
  if (base.skipCSRFCheck) logger.warn("csrf-disabled")
  if (base.experimental.enableWebAuthn) logger.warn("experimental-webauthn")
  const resolved: ResolvedConfig = Object.freeze({ ...base, configError })
  if (untrusted) reportUntrustedHostLater(resolved)
  return resolved
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
