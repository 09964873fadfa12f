/**
 * `Auth(request, config)`: a web `Request` in, a web `Response` out. Resolve the config (once), parse
 * the action off the path, answer configuration errors, route, and serialise.
 */
import { AuthError, UnknownAction, type UntrustedHost } from "../../errors.js"
import type { AuthConfig } from "../../types.js"
import { type ResolvedConfig, reportUntrustedHostOnce, resolvedFor } from "../config/resolve.js"
import type { Handled, IncomingRequest, RequestContext, ResponseInternal } from "./context.js"
import { bodyKind, parseBody } from "./body.js"
import { parseCookies } from "./cookies.js"
import { type AuthAction, isAuthAction } from "../config/env.js"
import { resolveOrigin } from "./origin.js"
import { CONFIG_MESSAGE, configErrorPage, configErrorResponse, json, toOutgoing, toWebResponse, type Outgoing } from "./respond.js"
import type { RouteTable } from "./route-table.js"
import { route } from "./routes.js"

/** The body of every malformed request: 400 with the JSON string "Bad request." (Auth.js). */
function badRequest(config: ResolvedConfig, reason: string): Handled {
  const error = new UnknownAction(reason)
  config.logger.error(error)
  return { response: json("Bad request.", 400), error }
}

/**
 * A request from a host that is not trusted: the configuration answer (500 JSON, or the error page on a
 * GET page route) with no absolute URL in it, no redirect and no cookie, so nothing points at that host.
 */
function untrustedHost(
  config: ResolvedConfig,
  error: UntrustedHost,
  action: string,
  req: Pick<IncomingRequest, "method" | "headers">,
  basePath: string,
): Handled {
  const { method } = req
  // a configuration that can trust no host is logged once, at its first request
  if (!config.configError || reportUntrustedHostOnce(config)) config.logger.error(error)
  if (method !== "GET" || !["signin", "signout", "error", "verify-request"].includes(action)) {
    return { response: json({ message: CONFIG_MESSAGE }, 500), error }
  }
  return { response: configErrorPage(config, "/", `${basePath}/signin`, req.headers), error }
}

interface ParsedPath {
  action: AuthAction
  providerId: string | undefined
}

/** True when `pathname` is `basePath` or below it (on a `/` boundary). */
export function isUnderBasePath(pathname: string, basePath: string): boolean {
  return basePath === "" || pathname === basePath || pathname.startsWith(`${basePath}/`)
}

/**
 * Splits `<basePath>/<action>[/<providerId>]`; the base path must end on a `/` boundary, the action must
 * be served and take a provider when one is given (the routing table says which).
 */
export function parsePath(
  pathname: string,
  basePath: string,
  table: Pick<RouteTable, "extraActions" | "providerActions">,
): ParsedPath | null {
  if (!isUnderBasePath(pathname, basePath)) return null
  // the non-empty segments: the action, then the provider, and nothing more
  let action: string | undefined
  let rawProvider: string | undefined
  let count = 0
  for (const segment of pathname.slice(basePath.length).split("/")) {
    if (segment === "") continue
    if (count === 0) action = segment
    else if (count === 1) rawProvider = segment
    count++
  }
  if (!action || count > 2 || !(isAuthAction(action) || table.extraActions.has(action))) return null
  let providerId: string | undefined
  if (rawProvider !== undefined && rawProvider !== "undefined") {
    try {
      providerId = decodeURIComponent(rawProvider)
    } catch {
      return null
    }
  }
  if (providerId !== undefined && !table.providerActions.has(action)) return null
  return { action: action as AuthAction, providerId }
}

/**
 * The context of one parsed request, or the answer when there is none to build: a method other than GET
 * or POST, a path that names no action, an untrusted host.
 */
export function requestContext(req: IncomingRequest, config: ResolvedConfig, basePath: string = config.basePath): RequestContext | Handled {
  if (req.method !== "GET" && req.method !== "POST") {
    return badRequest(config, "Only GET and POST requests are supported")
  }
  const parsed = parsePath(req.url.pathname, basePath, config.routing)
  if (!parsed) return badRequest(config, `Cannot parse action at ${req.url.pathname}`)
  const at = resolveOrigin(req.url, config.origin)
  if (!at.ok) {
    if (at.error instanceof UnknownAction) return badRequest(config, at.error.message)
    return untrustedHost(config, at.error, parsed.action, req, basePath)
  }
  const { origin } = at
  const secure = config.useSecureCookies ?? at.secure
  return {
    config,
    req,
    action: parsed.action,
    providerId: parsed.providerId,
    provider: parsed.providerId === undefined ? undefined : config.providers.get(parsed.providerId),
    origin,
    basePath,
    authUrl: `${origin}${at.pinnedPath ?? basePath}`,
    secure,
    cookies: secure ? config.cookies.secure : config.cookies.plain,
    now: Date.now(),
  }
}

/**
 * Handles one parsed request. Integrations call this directly (no web `Request` needed); `basePath`
 * overrides the configured one, e.g. with the Express mount path.
 */
export function handleRequest(req: IncomingRequest, config: ResolvedConfig, basePath: string = config.basePath): Promise<Handled> {
  // not an async function: one returning route's promise would wait two more turns to pass it on
  try {
    const ctx = requestContext(req, config, basePath)
    if ("response" in ctx) return Promise.resolve(ctx)
    config.logger.debug("request", { method: req.method, action: ctx.action, provider: ctx.providerId })
    if (config.configError) return Promise.resolve({ response: configErrorResponse(ctx), error: config.configError })
    return route(ctx)
  } catch (err) {
    return Promise.reject(err)
  }
}

/** Reads a web `Request` into the runtime's request shape. Throws `UnknownAction` on a malformed body. */
export async function fromWebRequest(request: Request): Promise<IncomingRequest> {
  const url = new URL(request.url)
  const kind = request.method === "POST" && request.body ? bodyKind(request.headers.get("content-type")) : undefined
  const body = kind ? parseBody(kind, await request.text()) : undefined
  const headers = request.headers
  return {
    method: request.method,
    url,
    headers,
    cookies: parseCookies(headers.get("cookie")),
    body,
    headerEntries: () => headers.entries(),
  }
}

/** Serialises a handled request the way `Auth` answers it. */
export function finish(handled: Handled, req: Pick<IncomingRequest, "method" | "headers">): Outgoing {
  const returnRedirect = req.headers.get("x-auth-return-redirect") !== null
  return toOutgoing(handled.response, req.method, returnRedirect, handled.error !== undefined)
}

/** Per-request options of {@link Auth}. */
export interface AuthOptions {
  /** The client's IP address, for the per-client rate limits (never taken from `X-Forwarded-For`). */
  clientIp?: string
}

/**
 * Handles an auth request: `GET|POST <basePath>/<action>[/<provider>]`.
 *
 * @example
 * ```ts
 * import { Auth } from "authchart"
 * import Credentials from "authchart/providers/credentials"
 * const response = await Auth(request, { providers: [Credentials({ authorize })], secret })
 * ```
 * With `raw` in the config the internal response object is returned instead, and `AuthError`s are
 * thrown (unless the request asked for `X-Auth-Return-Redirect`). Pass `{ clientIp }` (an address your
 * server or proxy vouches for) so the per-client rate limits apply; without it only the per-account ones do.
 */
export async function Auth(request: Request, config: AuthConfig & { raw: symbol }, options?: AuthOptions): Promise<ResponseInternal>
export async function Auth(request: Request, config: AuthConfig, options?: AuthOptions): Promise<Response>
export async function Auth(request: Request, config: AuthConfig, options: AuthOptions = {}): Promise<Response | ResponseInternal> {
  const resolved = resolvedFor(config)
  let handled: Handled
  try {
    const parsed = await fromWebRequest(request)
    const incoming = options.clientIp ? { ...parsed, clientIp: options.clientIp } : parsed
    handled = await handleRequest(incoming, resolved)
  } catch (err) {
    handled =
      err instanceof UnknownAction ? badRequest(resolved, err.message) : { response: json({ message: "Internal error" }, 500), error: err }
    if (!(err instanceof UnknownAction)) resolved.logger.error(err instanceof Error ? err : new Error(String(err)))
  }
  const returnRedirect = request.headers.get("x-auth-return-redirect") !== null
  // raw: the internal response, AuthErrors thrown (unless the client asked for { url }); configuration
  // errors and non-AuthError failures still answer with a web Response, as in Auth.js.
  if (resolved.raw && !resolved.configError) {
    const { error } = handled
    if (error === undefined) return handled.response
    if (error instanceof AuthError) {
      if (!returnRedirect) throw error
      return handled.response
    }
  }
  return toWebResponse(toOutgoing(handled.response, request.method, returnRedirect, handled.error !== undefined))
}
