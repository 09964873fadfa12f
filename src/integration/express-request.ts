/**
 * An Express request as the runtime reads it: its origin (Host, or X-Forwarded-* only under Express'
 * `trust proxy`), its URL, its mount path, its headers and cookies.
 */
import type { IncomingHttpHeaders } from "node:http"
import type { Request as ExpressRequest } from "express"
import { UnknownAction } from "../errors.js"
import type { ResolvedConfig } from "../runtime/front/resolve.js"
import type { HeaderReader, IncomingRequest } from "../runtime/http/context.js"
import { type CookieJar, parseCookies } from "../runtime/http/cookies.js"

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
 * `req.protocol` worked out as Express' getter does (the socket's, or the first X-Forwarded-Proto when
 * `trust proxy` trusts the peer), with the trust asked once. Express gives every `req` a hidden class of
 * its own, so each name read on it is a cache miss per request: the getter added one, and its reads.
 */
function requestProtocol(req: ExpressRequest, trusted: boolean): string {
  const socket = req.socket
  const own = "encrypted" in socket && socket.encrypted ? "https" : "http"
  if (!trusted) return own
  const header = req.get("x-forwarded-proto") || own
  const comma = header.indexOf(",")
  return (comma === -1 ? header : header.slice(0, comma)).trim()
}

/**
 * The request's origin as Express sees it: `req.protocol` (X-Forwarded-Proto only under `trust proxy`)
 * and the Host header, or X-Forwarded-Host when `trust proxy` trusts the peer. A protocol other than
 * http(s) or a host that is not a host is a bad request (`UnknownAction`).
 */
function requestOrigin(req: ExpressRequest): string {
  const trusted = trustsProxy(req)
  const forwarded = trusted ? req.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined
  const host = forwarded || req.headers.host || "localhost"
  const protocol = requestProtocol(req, trusted).toLowerCase()
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
export function mountPath(req: ExpressRequest): string {
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
export class ExpressIncoming implements IncomingRequest {
  readonly headers: NodeHeaders
  readonly cookies: CookieJar
  /** `req.ip` once read (null: not yet). */
  #clientIp: string | undefined | null = null
  constructor(
    private readonly req: ExpressRequest,
    readonly method: string,
    readonly url: URL,
    readonly body: Record<string, unknown> | undefined,
  ) {
    this.headers = new NodeHeaders(req.headers)
    this.cookies = parseCookies(req.headers.cookie)
  }
  /**
   * Express's client address (`trust proxy` decides whether X-Forwarded-For is believed), read when a rate
   * limit asks for it: a session read never does.
   */
  get clientIp(): string | undefined {
    if (this.#clientIp === null) this.#clientIp = this.req.ip || undefined
    return this.#clientIp
  }
  headerEntries(): Iterable<[string, string]> {
    return headerEntries(this.headers.raw)
  }
}

/**
 * The absolute URL of `path` (default: the request's own target) on the request's origin. A protocol,
 * host or request target that makes no URL is a bad request (`UnknownAction`).
 */
export function requestUrl(req: ExpressRequest, config: ResolvedConfig, path: string = req.originalUrl): URL {
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
export function warnIgnoredForwarding(req: ExpressRequest, config: ResolvedConfig): void {
  if (config.origin.pinned || warnedTrustProxy.has(config)) return
  if (req.headers["x-forwarded-proto"] === undefined && req.headers["x-forwarded-host"] === undefined) return
  if (trustsProxy(req)) return
  warnedTrustProxy.add(config)
  config.logger.warn("express-trust-proxy")
}
