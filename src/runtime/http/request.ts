/**
 * One request as the runtime reads it: a web `Request` made into the runtime's request shape, and that
 * shape made into a request context (the action and provider off the path, the one resolved origin, the
 * cookie set), or the answer when there is none to build. Both `Auth()` and the public functions that
 * take a request (`getSession`, the session and token helpers) start here.
 */
import { UnknownAction, type UntrustedHost } from "../../errors.js"
import type { RouteTable } from "../../types/route.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { type AuthAction, isAuthAction } from "../config/env.js"
import { bodyKind, parseBody } from "./body.js"
import type { Handled, IncomingRequest, RequestContext } from "./context.js"
import { parseCookies } from "./cookies.js"
import { resolveOrigin } from "./origin.js"
import { CONFIG_MESSAGE, configErrorPage, json } from "./respond.js"

const untrustedUnreported = new WeakSet<ResolvedConfig>()

/** Marks a config that trusts no host: its `UntrustedHost` is logged at its first request, with that request's URL. */
export function reportUntrustedHostLater(config: ResolvedConfig): void {
  untrustedUnreported.add(config)
}

/**
 * True once for a config that trusts no host and whose `UntrustedHost` is not logged yet: the first
 * request logs it with its URL (Auth.js' message); every later one answers without a line.
 */
export function reportUntrustedHostOnce(config: ResolvedConfig): boolean {
  return untrustedUnreported.delete(config)
}

/** The body of every malformed request: 400 with the JSON string "Bad request." (Auth.js). */
export function badRequest(config: ResolvedConfig, reason: string): Handled {
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
