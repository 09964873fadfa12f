/**
 * The per-request context handed to route handlers and effects: the parsed request, the resolved
 * config, and what follows from both (origin, base path, cookie set). Built once per request.
 */
import { formValue } from "./body.js"
import type { EffectContext } from "../../types/flow.js"
import type { HeaderReader, IncomingRequest, RequestContext, ResponseInternal, Handled } from "../../types/request.js"
export type { HeaderReader, IncomingRequest, RequestContext, ResponseInternal, Handled }

/**
 * The context a flow's effects get: the request's, with the callback URL the flow will end on. Built as one
 * literal so that every request's context has the same shape (`{ ...ctx, callbackUrl }` would give each
 * request's object a hidden class of its own, and every read of it a cache miss).
 * @example const effectCtx = withCallbackUrl(ctx, "https://app.example/dashboard")
 */
export function withCallbackUrl(ctx: RequestContext, callbackUrl: string): EffectContext {
  return {
    config: ctx.config,
    req: ctx.req,
    action: ctx.action,
    providerId: ctx.providerId,
    provider: ctx.provider,
    origin: ctx.origin,
    basePath: ctx.basePath,
    authUrl: ctx.authUrl,
    secure: ctx.secure,
    cookies: ctx.cookies,
    now: ctx.now,
    callbackUrl,
  }
}

/** A string field of the body, else of the query. */
export function param(req: IncomingRequest, name: string): string | undefined {
  const fromBody = req.body?.[name]
  if (typeof fromBody === "string") return fromBody
  const { url } = req
  // no query: nothing to look up; else read in place (`searchParams` would parse it into an object of its own)
  return url.search === "" ? undefined : (formValue(url.search.slice(1), name) ?? undefined)
}

/**
 * A web `Request` for user code (authorize), carrying the headers and the body as JSON.
 * @example const request = toUserRequest(ctx.req) // for a callback of yours that takes the request
 */
export function toUserRequest(req: IncomingRequest): Request {
  const headers = new Headers()
  for (const [name, value] of req.headerEntries()) {
    if (name !== "content-length" && name !== "content-type") headers.append(name, value)
  }
  headers.set("content-type", "application/json")
  return new Request(req.url, { method: "POST", headers, body: JSON.stringify(req.body ?? {}) })
}

const LAZY = Symbol("lazy request")

/** The stand-in's own state: the request it stands for, and the web `Request` once built. */
type LazyRequest = Request & { [LAZY]: { req: IncomingRequest; real?: Request } }

function realRequest(stand: LazyRequest): Request {
  const state = stand[LAZY]
  state.real ??= toUserRequest(state.req)
  return state.real
}

/**
 * One handler for every stand-in (no closures per request): each property is the real request's, and its
 * prototype is `Request.prototype`, looked up only when asked (`instanceof Request`): the global `Request`
 * loads Node's fetch implementation (undici) the first time it is touched, which a server whose
 * `authorize` never reads its request need not load.
 */
const lazyRequest: ProxyHandler<LazyRequest> = {
  get(stand, key) {
    const request = realRequest(stand)
    const value: unknown = Reflect.get(request, key, request)
    return typeof value === "function" ? value.bind(request) : value
  },
  has: (stand, key) => Reflect.has(realRequest(stand), key),
  getPrototypeOf: () => Request.prototype,
}

/**
 * The `request` argument for a user function that receives one: the web `Request` itself when the function
 * declares a parameter for it, else a stand-in that builds it on first use (a web `Request` costs more
 * than the rest of a sign-in's parsing). The stand-in is `instanceof Request` and forwards every property.
 * @example await provider.authorize(input.params, userRequestFor(provider.authorize, 2, ctx.req))
 */
export function userRequestFor(fn: (...args: never[]) => unknown, position: number, req: IncomingRequest): Request {
  return fn.length !== position ? toUserRequest(req) : lazyUserRequest(req)
}

/**
 * A stand-in for the request's web `Request` that builds it on first use: `instanceof Request`, and every
 * property is the real one's.
 * @example const request = lazyUserRequest(ctx.req) // nothing built until a property is read
 */
export function lazyUserRequest(req: IncomingRequest): Request {
  const stand = Object.create(null) as LazyRequest
  stand[LAZY] = { req }
  return new Proxy(stand, lazyRequest)
}
