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
import type { IncomingMessage } from "node:http"
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express"
import { UnknownAction } from "../errors.js"
import { finish, handleRequest } from "../runtime/front/auth.js"
import { isUnderBasePath } from "../runtime/http/request.js"
import type { ResolvedConfig } from "../types/resolved.js"
import { resolvedFor } from "../runtime/front/resolve.js"
import { reportUntrustedHostOnce } from "../runtime/http/request.js"
import { serializeCookie } from "../runtime/http/cookies.js"
import { json as jsonResponse, toOutgoing } from "../runtime/http/respond.js"
import { revokeOtherSessionsFor } from "../runtime/front/manage.js"
import type { AuthConfig, Session } from "../types.js"
import { accessTokenForRequest } from "../runtime/front/access-token.js"
import { type RecentAuth, type RecentAuthOptions, recentAuthFor } from "../runtime/front/require-recent-auth.js"
import { readBody } from "./body.js"
import { ExpressIncoming, mountPath, requestUrl, warnIgnoredForwarding } from "./express-request.js"
import { setCookies, write } from "./express-write.js"

export { customFetch } from "../runtime/config/custom-fetch.js"
// what @auth/express re-exports, so its imports move over by changing the module name; the type
// re-exports from the package's entry points also put them in an app's program, so that
// `declare module "authchart"` / `"authchart/jwt"` augment with only this module imported
export { AuthError, CredentialsSignin } from "../errors.js"
export type { Account, DefaultSession, Profile, Session, User } from "../index.js"
export type { JWT } from "../jwt.js"
export type { RecentAuth, RecentAuthOptions } from "../runtime/front/require-recent-auth.js"
/** The config `ExpressAuth` and `getSession` take: `AuthConfig` without `raw`. */
export type ExpressAuthConfig = Omit<AuthConfig, "raw">

const MOUNTED = Symbol.for("authchart.express.config")

type AuthMiddleware = ((req: ExpressRequest, res: ExpressResponse, next: NextFunction) => Promise<void>) & {
  [MOUNTED]: ExpressAuthConfig
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

/**
 * Hands an app's configuration mistake to Express' error handler. Express 5's router passes a rejected
 * handler promise to it, so the error is thrown; Express 4's ignores the promise (the request would hang
 * and the rejection go unhandled), so the error goes to `req.next(err)` and the promise never settles:
 * the awaiting route does not resume, the error handler answers.
 */
function configurationMistake(req: ExpressRequest, error: Error): Promise<never> {
  const app: object | undefined = req.app
  // Express 4 keeps its router in `_router` (see mountedConfig)
  if (app && "_router" in app && typeof req.next === "function") {
    req.next(error)
    return new Promise<never>(() => {})
  }
  return Promise.reject(error)
}

/**
 * The request's session, or `null`: for any request, whatever its Host, protocol, cookies or headers
 * (malformed input, an untrusted host, an expired or tampered token: `null`, and logged). Without
 * `config`, the config of the `ExpressAuth` mounted on the same app is used. With `res`, a refreshed
 * session cookie is forwarded to the response.
 *
 * A mistake in the app is an error for Express' error handler on every call, never a `null` (which would
 * look like "signed out") nor a hanging request: no config to use at all, or a configuration error (the
 * `AuthError` with Auth.js' message, e.g. `MissingSecret` for a secret under 32 characters, logged once
 * when the config is resolved). Express 5 gets it as the rejection; under Express 4, whose router ignores
 * a rejected promise, getSession passes it to `next(err)` itself and the awaiting route does not resume.
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
    return configurationMistake(
      req,
      new Error("getSession(req) found no ExpressAuth on this app: pass the config, getSession(req, config)."),
    )
  }
  const resolved: ResolvedConfig = resolvedFor(effective)
  if (resolved.configError) {
    // a config that trusts no host is logged at its first request (Auth.js' message, with the URL)
    if (reportUntrustedHostOnce(resolved)) resolved.logger.error(resolved.configError)
    return configurationMistake(req, resolved.configError)
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

/**
 * Requires a recent proof of who the user is before a sensitive action: `ok` when the request's session
 * was signed in or re-authenticated at most `maxAge` seconds ago; otherwise `redirect` is where to send
 * the user: the re-authentication page (`<basePath>/reauth`: password or TOTP code of the same user)
 * for an older session or one without a proof time, the sign-in page when nobody is signed in. Either
 * brings the user back to this request's URL, with a GET (guard the page with the form, and check again
 * where it posts). With `res`, a refreshed or cleared session cookie is set on it.
 *
 * @example
 * ```ts
 * app.get("/account/delete", async (req, res) => {
 *   const check = await requireRecentAuth(req, authConfig, { maxAge: 5 * 60 }, res)
 *   if (!check.ok) return res.redirect(303, check.redirect)
 *   // check.session: the signed-in user, who proved who they are within five minutes; show the form
 * })
 * ```
 */
export async function requireRecentAuth(
  req: ExpressRequest,
  config: ExpressAuthConfig,
  options: RecentAuthOptions,
  res?: ExpressResponse,
): Promise<RecentAuth> {
  const resolved = resolvedFor(config)
  const url = requestUrl(req, resolved)
  const { cookies, ...result } = await recentAuthFor(new ExpressIncoming(req, "GET", url, undefined), resolved, options)
  if (res && !res.headersSent && cookies.length > 0) setCookies(res, cookies.map(serializeCookie))
  return result
}
