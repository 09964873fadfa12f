/**
 * The provider side of OAuth / OIDC: the authorization server's metadata (discovery, cached, or built
 * from explicit endpoints), the client and its authentication, and oauth4webapi's HTTP options for every
 * request to the provider: the provider's own `[customFetch]` or the global `fetch` (oauth-fetch.ts), the
 * provider's timeout as each request's deadline, and the plain-`http:` policy (loopback or explicit
 * opt-in only).
 */
import * as o from "oauth4webapi"
import { InvalidEndpoints } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import { customFetch } from "../config/custom-fetch.js"
import { type ProviderFetch, providerFetch } from "./fetch.js"

export const DEFAULT_TIMEOUT_MS = 10_000
const DISCOVERY_TTL_MS = 60 * 60 * 1000

/** One endpoint: its URL (params folded into the query) and any extras. */
export interface Endpoint {
  readonly url: URL | undefined
  readonly params: Readonly<Record<string, string>>
}

export function endpoint(setting: OAuthConfig["authorization"] | OAuthConfig["token"] | OAuthConfig["userinfo"]): Endpoint {
  if (!setting) return { url: undefined, params: {} }
  const raw = typeof setting === "string" ? { url: setting } : setting
  const url = raw.url ? new URL(raw.url) : undefined
  const params: Record<string, string> = {}
  for (const [key, value] of Object.entries(raw.params ?? {})) {
    if (value === undefined || value === null) continue
    params[key] = typeof value === "string" ? value : JSON.stringify(value)
  }
  return { url, params }
}

function isLoopback(url: URL): boolean {
  const host = url.hostname
  return host === "localhost" || host === "[::1]" || host.startsWith("127.")
}

/** Whether a plain-`http:` URL may be used for this provider: loopback, or the provider opted in. */
function insecureAllowed(provider: OAuthConfig, url: URL | undefined): boolean {
  return url?.protocol === "http:" && (isLoopback(url) || provider.allowInsecureRequests === true)
}

/** Each provider's own fetch, looked up once per provider object (its config is resolved once: `[customFetch]` is set with it). */
const ownFetches = new WeakMap<object, ProviderFetch | null>()

/** The provider's own fetch: `[customFetch]`, authchart's symbol or Auth.js' (known by its description). */
function ownFetch(provider: object): ProviderFetch | undefined {
  const known = ownFetches.get(provider)
  if (known !== undefined) return known ?? undefined
  const own = findOwnFetch(provider)
  ownFetches.set(provider, own ?? null)
  return own
}

function findOwnFetch(provider: object): ProviderFetch | undefined {
  const own: unknown = Reflect.get(provider, customFetch)
  if (typeof own === "function") return (url, init) => Promise.resolve(own(url, init))
  for (const key of Object.getOwnPropertySymbols(provider)) {
    const value: unknown = Reflect.get(provider, key)
    if (key.description === "custom-fetch" && typeof value === "function") return (url, init) => Promise.resolve(value(url, init))
  }
  return undefined
}

/** The provider's own fetch, else the global `fetch` with a bounded answer body (oauth-fetch.ts). */
function fetchFor(provider: OAuthConfig): ProviderFetch {
  return ownFetch(provider) ?? providerFetch
}

/** The deadline of one request to this provider: its `timeout`, counted from the request until its answer is read. */
function deadlineOf(provider: OAuthConfig): () => AbortSignal {
  const timeout = provider.timeout ?? DEFAULT_TIMEOUT_MS
  return () => AbortSignal.timeout(timeout)
}

/**
 * oauth4webapi's HTTP options for a request to this provider: its fetch ({@link fetchFor}), the
 * provider's timeout as the request's deadline, plain `http:` only where allowed.
 */
export function httpOptions(
  provider: OAuthConfig,
  url: URL | undefined,
): { [o.customFetch]: ProviderFetch; [o.allowInsecureRequests]: boolean; signal: () => AbortSignal } {
  return { [o.customFetch]: fetchFor(provider), [o.allowInsecureRequests]: insecureAllowed(provider, url), signal: deadlineOf(provider) }
}

/** A provider's client as last made, with the settings it was made from. */
interface MadeClient {
  readonly client: o.Client
  readonly auth: o.ClientAuth
  readonly from: readonly unknown[]
}

const clients = new WeakMap<OAuthConfig, MadeClient>()

/** The settings a provider's client is made from. */
const clientSettings = (provider: OAuthConfig): readonly unknown[] => [
  provider.clientId,
  provider.clientSecret,
  provider.client?.token_endpoint_auth_method,
  provider.client?.id_token_signed_response_alg,
]

/** Whether `from` (a client's {@link clientSettings}) are still the provider's, read field by field (no list per call). */
function sameSettings(from: readonly unknown[], provider: OAuthConfig): boolean {
  const { client } = provider
  return (
    from[0] === provider.clientId &&
    from[1] === provider.clientSecret &&
    from[2] === client?.token_endpoint_auth_method &&
    from[3] === client?.id_token_signed_response_alg
  )
}

/**
 * The client as oauth4webapi sees it, and how it authenticates at the token endpoint: made once per
 * provider (and again when its client settings change).
 */
export function clientOf(provider: OAuthConfig): { client: o.Client; auth: o.ClientAuth } {
  const made = clients.get(provider)
  if (made && sameSettings(made.from, provider)) return made
  const from = clientSettings(provider)
  const method = provider.client?.token_endpoint_auth_method ?? (provider.clientSecret ? "client_secret_basic" : "none")
  const alg = provider.client?.id_token_signed_response_alg
  const client: o.Client = {
    client_id: provider.clientId ?? "",
    token_endpoint_auth_method: method,
    // e.g. LINE signs ID tokens with HS256
    ...(typeof alg === "string" ? { id_token_signed_response_alg: alg } : {}),
  }
  const secret = provider.clientSecret ?? ""
  const auth = method === "client_secret_post" ? o.ClientSecretPost(secret) : method === "none" ? o.None() : o.ClientSecretBasic(secret)
  const fresh = { client: Object.freeze(client), auth, from }
  clients.set(provider, fresh)
  return fresh
}

interface CacheEntry {
  readonly server: o.AuthorizationServer
  readonly until: number
}

/** Discovery results by issuer (and well-known URL), shared by the requests of one resolved config. */
export type DiscoveryCache = Map<string, CacheEntry>

const caches = new WeakMap<object, DiscoveryCache>()

/**
 * The discovery cache of one resolved config, kept by its providers (one map per config): a config and
 * the services of its flows' effects reach the same cache.
 */
export function discoveryCache(holder: { readonly providers: object }): DiscoveryCache {
  let cache = caches.get(holder.providers)
  if (!cache) caches.set(holder.providers, (cache = new Map()))
  return cache
}

/**
 * The provider's discovery document (OpenID Connect Discovery 1.0 §4), fetched with a bounded timeout
 * and cached for an hour per config. Logout needs it even when every sign-in endpoint is configured:
 * `end_session_endpoint` and `jwks_uri` come only from here.
 */
export async function discover(provider: OAuthConfig, cache: DiscoveryCache, now: number): Promise<o.AuthorizationServer> {
  return (await discovered(provider, cache, now)).server
}

/** The discovery cache's key of a provider: its issuer, well-known URL and type. */
function discoveryKey(provider: OAuthConfig & { issuer: string }): string {
  return `${new URL(provider.issuer).href}|${provider.wellKnown ?? ""}|${provider.type}`
}

async function discovered(provider: OAuthConfig, cache: DiscoveryCache, now: number): Promise<CacheEntry & { key: string }> {
  if (!provider.issuer) throw new InvalidEndpoints(`The provider "${provider.id}" has no issuer to discover.`)
  const issuer = new URL(provider.issuer)
  const key = discoveryKey({ ...provider, issuer: provider.issuer })
  const hit = cache.get(key)
  if (hit && hit.until > now) return { ...hit, key }
  const http = httpOptions(provider, issuer)
  const response = provider.wellKnown
    ? await http[o.customFetch](provider.wellKnown, { method: "GET", headers: {}, redirect: "manual", signal: http.signal() })
    : await o.discoveryRequest(issuer, { ...http, algorithm: provider.type === "oidc" ? "oidc" : "oauth2" })
  const server = await o.processDiscoveryResponse(issuer, response)
  const entry = { server, until: now + DISCOVERY_TTL_MS }
  cache.set(key, entry)
  return { ...entry, key }
}

/**
 * The authorization server: explicit endpoints win; discovery fills what is missing when there is an
 * issuer. Without either, `InvalidEndpoints`.
 */
export async function authorizationServer(provider: OAuthConfig, cache: DiscoveryCache, now: number): Promise<o.AuthorizationServer> {
  const known = knownServer(provider, cache, now)
  if (known) return known
  const authorization = endpoint(provider.authorization).url
  const token = endpoint(provider.token).url
  const userinfo = endpoint(provider.userinfo).url
  const complete = authorization && token && (userinfo || provider.type === "oidc")
  const entry = provider.issuer && !complete ? await discovered(provider, cache, now) : undefined
  const from = entry?.server
  const server: o.AuthorizationServer = Object.freeze({
    ...(from ?? {}),
    issuer: from?.issuer ?? provider.issuer ?? `urn:authchart:${provider.id}`,
    authorization_endpoint: authorization?.href ?? from?.authorization_endpoint,
    token_endpoint: token?.href ?? from?.token_endpoint,
    userinfo_endpoint: userinfo?.href ?? from?.userinfo_endpoint,
  })
  if (!server.authorization_endpoint || !server.token_endpoint) {
    throw new InvalidEndpoints(`Provider "${provider.id}" has no authorization or token endpoint.`)
  }
  resolvedServers.set(provider, { server, cache, key: entry?.key ?? null, from, until: entry?.until ?? Number.POSITIVE_INFINITY })
  return server
}

/**
 * The authorization server {@link authorizationServer} built last for this provider and config, while
 * it is still the one it would build (the same unexpired discovery document); undefined otherwise. Lets
 * a caller go on without a promise when nothing must be fetched.
 * @example const server = knownServer(provider, cache, ctx.now) ?? (await authorizationServer(provider, cache, ctx.now))
 */
export function knownServer(provider: OAuthConfig, cache: DiscoveryCache, now: number): o.AuthorizationServer | undefined {
  const hit = resolvedServers.get(provider)
  // the same provider, config and discovery document as last time: the same (frozen) server
  if (hit && hit.cache === cache && (hit.key === null || (hit.until > now && cache.get(hit.key)?.server === hit.from))) return hit.server
  return undefined
}

/**
 * The last authorization server built for a provider, with what it was built from: rebuilding it (the
 * endpoints' URLs, the merge with discovery) is skipped while the discovery document it used is still the
 * cached, unexpired one. Explicit endpoints alone never change, so such a server lives with its provider.
 */
interface ResolvedServer {
  readonly server: o.AuthorizationServer
  readonly cache: DiscoveryCache
  /** The discovery cache key it was built with; null when it was built without discovery. */
  readonly key: string | null
  readonly from: o.AuthorizationServer | undefined
  readonly until: number
}

const resolvedServers = new WeakMap<OAuthConfig, ResolvedServer>()
