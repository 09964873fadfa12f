/**
 * `Auth(request, config)`: a web `Request` in, a web `Response` out. Resolve the config (once), parse
 * the action off the path, answer configuration errors, route, and serialise.
 */
import { AuthError, UnknownAction } from "../../errors.js"
import type { AuthConfig } from "../../types.js"
import { type ResolvedConfig, resolvedFor } from "./resolve.js"
import type { Handled, IncomingRequest, ResponseInternal } from "../http/context.js"
import { badRequest, fromWebRequest, requestContext } from "../http/request.js"
import { configErrorResponse, json, toOutgoing, toWebResponse, type Outgoing } from "../http/respond.js"
import { route } from "./routes.js"

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
