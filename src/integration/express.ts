/**
 * Express integration: `ExpressAuth(config)` mounts every auth route, `getSession(req)` reads the
 * session in your own routes. Works on Express 4 and 5, with `app.use("/auth", …)`,
 * `app.use("/auth/*", …)` (4) or `app.use("/auth/*splat", …)` (5).
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth, getSession } from "authchart/express"
 * const app = express()
 * app.set("trust proxy", true) // behind a proxy: protocol and host from X-Forwarded-*
 * app.use("/auth", ExpressAuth(authConfig))
 * app.get("/me", async (req, res) => res.json(await getSession(req, authConfig, res)))
 * ```
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express"
import { UnknownAction } from "../errors.js"
import { finish, handleRequest, isUnderBasePath } from "../runtime/auth.js"
import { type ResolvedConfig, resolvedFor } from "../runtime/config.js"
import type { HeaderReader, IncomingRequest } from "../runtime/context.js"
import { type CookieJar, parseCookies, serializeCookie } from "../runtime/cookies.js"
import { json as jsonResponse, toOutgoing } from "../runtime/respond.js"
import { revokeOtherSessionsFor } from "../runtime/manage.js"
import type { AuthConfig, Session } from "../types.js"
import { accessTokenForRequest } from "../runtime/tokens/request.js"
import { readBody } from "./body.js"
import { setCookies, write } from "./express-write.js"

export { customFetch } from "../runtime/custom-fetch.js"
export type ExpressAuthConfig = Omit<AuthConfig, "raw">

const MOUNTED = Symbol.for("authchart.express.config")

type AuthMiddleware = ((req: ExpressRequest, res: ExpressResponse, next: NextFunction) => Promise<void>) & {
  [MOUNTED]: ExpressAuthConfig
}

/** Request headers read by lower-case name; repeated headers joined with ", " (as `Headers#get`). */
class NodeHeaders implements HeaderReader {
  constructor(readonly raw: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(", ") : value
  }
}

function* headerEntries(headers: IncomingHttpHeaders): Iterable<[string, string]> {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) yield [name, v]
    else yield [name, value]
  }
}

/** True when Express' `trust proxy` setting trusts the peer, so `X-Forwarded-*` count. */
function trustsProxy(req: ExpressRequest): boolean {
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined
  return trust?.(req.socket.remoteAddress, 0) === true
}

/** `host[:port]`: a DNS name or IPv4 address, or a bracketed IPv6 address. Nothing else makes an origin. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::\d{1,5})?$/

/**
 * The request's origin as Express sees it: `req.protocol` (X-Forwarded-Proto only under `trust proxy`)
 * and the Host header, or X-Forwarded-Host when `trust proxy` trusts the peer. A protocol other than
 * http(s) or a host that is not a host is a bad request (`UnknownAction`).
 */
function requestOrigin(req: ExpressRequest): string {
  const forwarded = trustsProxy(req) ? req.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined
  const host = forwarded || req.headers.host || "localhost"
  const protocol = req.protocol.toLowerCase()
  if ((protocol !== "http" && protocol !== "https") || !HOST.test(host)) {
    throw new UnknownAction("The request's protocol or host is not valid.")
  }
  return `${protocol}://${host}`
}

/** The origin the request's URL is built on: the pinned URL's when there is one (Host is never read). */
function originFor(req: ExpressRequest, config: ResolvedConfig): string {
  return config.origin.pinned?.origin ?? requestOrigin(req)
}

/**
 * The mount path of the middleware, with any `*` / `*splat` remainder removed. The remainder is removed by
 * segment count: `req.params` are decoded while `req.baseUrl` is not.
 */
function mountPath(req: ExpressRequest): string {
  const params = req.params as Record<string, string | string[] | undefined>
  const rest = params["0"] ?? params.splat
  // `app.use("/auth", …)`: the base URL is the mount path already, unless it has empty segments
  if (rest === undefined && !req.baseUrl.endsWith("/") && !req.baseUrl.includes("//")) return req.baseUrl
  const restSegments = (Array.isArray(rest) ? rest : (rest ?? "").split("/")).filter(Boolean).length
  const segments = req.baseUrl.split("/").filter(Boolean)
  const base = segments.slice(0, segments.length - restSegments)
  return base.length === 0 ? "" : `/${base.join("/")}`
}

/** An Express request as the runtime reads it: plain fields, nothing built that the route does not read. */
class ExpressIncoming implements IncomingRequest {
  readonly headers: NodeHeaders
  readonly cookies: CookieJar
  readonly clientIp?: string
  constructor(
    req: ExpressRequest,
    readonly method: string,
    readonly url: URL,
    readonly body: Record<string, unknown> | undefined,
  ) {
    this.headers = new NodeHeaders(req.headers)
    this.cookies = parseCookies(req.headers.cookie)
    // Express's client address: `trust proxy` decides whether X-Forwarded-For is believed
    if (req.ip) this.clientIp = req.ip
  }
  headerEntries(): Iterable<[string, string]> {
    return headerEntries(this.headers.raw)
  }
}

/**
 * The absolute URL of `path` (default: the request's own target) on the request's origin. A protocol,
 * host or request target that makes no URL is a bad request (`UnknownAction`).
 */
function requestUrl(req: ExpressRequest, config: ResolvedConfig, path: string = req.originalUrl): URL {
  if (!path.startsWith("/")) throw new UnknownAction("The request target must be a path.")
  const origin = originFor(req, config)
  try {
    return new URL(`${origin}${path}`)
  } catch (err) {
    throw new UnknownAction("The request URL is not valid.", { err })
  }
}

const warnedTrustProxy = new WeakSet<ResolvedConfig>()

/**
 * Warns once per config when a proxy sends `X-Forwarded-Proto`/`-Host` that Express ignores because
 * `trust proxy` is off (everything then looks like plain http on the proxy's hop).
 */
function warnIgnoredForwarding(req: ExpressRequest, config: ResolvedConfig): void {
  if (config.origin.pinned || warnedTrustProxy.has(config)) return
  if (req.headers["x-forwarded-proto"] === undefined && req.headers["x-forwarded-host"] === undefined) return
  if (trustsProxy(req)) return
  warnedTrustProxy.add(config)
  config.logger.warn("express-trust-proxy")
}

/**
 * Express middleware serving the auth routes under its mount path (mounted at the root, under
 * `basePath`; other paths go on to `next()`). The config is resolved and validated here, once: a
 * configuration error is logged at start-up, and the auth routes answer it as Auth.js does.
 */
export function ExpressAuth(config: ExpressAuthConfig): AuthMiddleware {
  const resolved = resolvedFor(config)
  const middleware = async (req: ExpressRequest, res: ExpressResponse, next: NextFunction): Promise<void> => {
    try {
      const basePath = req.baseUrl ? mountPath(req) : resolved.basePath
      if (!req.baseUrl && !isUnderBasePath(req.path, basePath)) return next()
      warnIgnoredForwarding(req, resolved)
      let url: URL
      let body: Record<string, unknown> | undefined
      try {
        url = requestUrl(req, resolved)
        body = req.method === "POST" ? await readBody(req as IncomingMessage & { body?: unknown }) : undefined
      } catch (err) {
        if (!(err instanceof UnknownAction)) throw err
        resolved.logger.error(err)
        write(res, toOutgoing(jsonResponse("Bad request.", 400), req.method, false))
        return
      }
      const incoming = new ExpressIncoming(req, req.method, url, body)
      const out = finish(await handleRequest(incoming, resolved, basePath), incoming)
      if (!res.headersSent) write(res, out)
    } catch (err) {
      next(err)
    }
  }
  return Object.assign(middleware, { [MOUNTED]: config })
}

interface Layer {
  handle?: Partial<AuthMiddleware> & { stack?: Layer[] }
}

function findMounted(stack: readonly Layer[], depth: number): ExpressAuthConfig | undefined {
  for (const layer of stack) {
    const config = layer.handle?.[MOUNTED]
    if (config) return config
    const nested = layer.handle?.stack
    if (Array.isArray(nested) && depth < 8) {
      const found = findMounted(nested, depth + 1)
      if (found) return found
    }
  }
  return undefined
}

/** The config of the first `ExpressAuth` mounted on the request's app (or a router inside it), if any. */
function mountedConfig(req: ExpressRequest): ExpressAuthConfig | undefined {
  const app = req.app as unknown as { _router?: { stack?: Layer[] }; router?: { stack?: Layer[] } } | undefined
  if (!app) return undefined
  // Express 4 keeps its router in `_router` (its `app.router` getter throws); Express 5 in `router`
  const router = "_router" in app ? app._router : app.router
  return findMounted(router?.stack ?? [], 0)
}

const reportedConfigErrors = new WeakSet<ResolvedConfig>()

/**
 * The request's session, or `null`: for any request, whatever its Host, protocol, cookies or headers
 * (malformed input, an untrusted host, an expired or tampered token: `null`, and logged). Without
 * `config`, the config of the `ExpressAuth` mounted on the same app is used. With `res`, a refreshed
 * session cookie is forwarded to the response.
 *
 * Throws only for mistakes in the app, never per request: with no config to use at all, and with a
 * configuration error (the `AuthError` with its documented message) on the first call for that config;
 * later calls answer `null`.
 *
 * @example
 * ```ts
 * app.use((req, res, next) => {
 *   getSession(req, authConfig, res).then((session) => { res.locals.session = session; next() }, next)
 * })
 * ```
 */
export async function getSession(req: ExpressRequest, config?: ExpressAuthConfig, res?: ExpressResponse): Promise<Session | null> {
  const effective = config ?? mountedConfig(req)
  if (!effective) {
    throw new Error("getSession(req) found no ExpressAuth on this app: pass the config, getSession(req, config).")
  }
  const resolved: ResolvedConfig = resolvedFor(effective)
  if (resolved.configError) {
    if (reportedConfigErrors.has(resolved)) return null
    reportedConfigErrors.add(resolved)
    throw resolved.configError
  }
  try {
    warnIgnoredForwarding(req, resolved)
    const url = requestUrl(req, resolved, `${resolved.basePath}/session`)
    // always a GET /session, whatever the method of the app's own request
    const incoming = new ExpressIncoming(req, "GET", url, undefined)
    const { response } = await handleRequest(incoming, resolved)
    if (response.redirect !== undefined || (response.status ?? 200) !== 200) return null
    if (res && !res.headersSent && response.cookies?.length) setCookies(res, response.cookies.map(serializeCookie))
    const session = response.body as Session | null
    return session && typeof session === "object" && Object.keys(session).length > 0 ? session : null
  } catch (err) {
    resolved.logger.error(err instanceof Error ? err : new UnknownAction("getSession failed.", { err }))
    return null
  }
}

/**
 * Ends every session of the request's signed-in user except this one ("sign out other devices"); this
 * browser's re-issued session cookie is set on `res`. False when nobody is signed in. Check CSRF in
 * your route (or use `POST /auth/revoke-other-sessions`, which does).
 *
 * @example
 * ```ts
 * app.post("/account/sign-out-others", csrfProtected, async (req, res) => {
 *   await revokeOtherSessions(req, authConfig, res)
 *   res.redirect(303, "/account")
 * })
 * ```
 */
export async function revokeOtherSessions(req: ExpressRequest, config: ExpressAuthConfig, res: ExpressResponse): Promise<boolean> {
  const resolved = resolvedFor(config)
  const url = requestUrl(req, resolved, `${resolved.basePath}/revoke-other-sessions`)
  const { revoked, cookies } = await revokeOtherSessionsFor(new ExpressIncoming(req, "POST", url, undefined), resolved)
  if (!res.headersSent && cookies.length > 0) setCookies(res, cookies.map(serializeCookie))
  return revoked
}

/**
 * A valid access token of the signed-in user's account with an OAuth/OIDC provider, refreshed first
 * when it expires within `session.providerTokens.refreshMargin` (default 60 s): once per account however
 * many requests ask at the same time, also across instances sharing a `serverState`. Needs
 * `session.providerTokens`. Without `config`, the mounted `ExpressAuth`'s config is used.
 *
 * Resolves to null when nobody is signed in or the user has no tokens from that provider. Rejects with
 * `RefreshTokenError` when the provider refused the refresh (sign in again; the session then carries
 * `error: "RefreshTokenError"`), `AccessTokenUnavailable` when no token can be had right now (try
 * later), and a TypeError for app mistakes (no such OAuth provider, `session.providerTokens` unset).
 *
 * @example
 * ```ts
 * app.get("/repos", async (req, res) => {
 *   const token = await getAccessToken(req, "github", authConfig)
 *   if (!token) return res.redirect("/auth/signin")
 *   res.json(await (await fetch("https://api.github.com/user/repos", { headers: { authorization: `Bearer ${token}` } })).json())
 * })
 * ```
 */
export async function getAccessToken(req: ExpressRequest, providerId: string, config?: ExpressAuthConfig): Promise<string | null> {
  const effective = config ?? mountedConfig(req)
  if (!effective) throw new Error("getAccessToken(req) found no ExpressAuth on this app: pass the config.")
  const resolved = resolvedFor(effective)
  let url: URL
  try {
    url = requestUrl(req, resolved, `${resolved.basePath}/session`)
  } catch (err) {
    // a request whose protocol or host makes no URL has no session (logged, as getSession does)
    resolved.logger.error(err instanceof Error ? err : new UnknownAction("getAccessToken failed.", { err }))
    return null
  }
  return accessTokenForRequest(new ExpressIncoming(req, "GET", url, undefined), resolved, providerId)
}
