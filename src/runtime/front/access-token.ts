/**
 * `getAccessToken` for a request: the session is read exactly as `GET /session` reads it (expiry,
 * revocation, the `jwt` callback), and its user's token for the provider comes from `accessTokenOf`.
 * The web form for `Auth()` users is exported from `authchart`; the Express one from `authchart/express`.
 */
import type { AuthConfig } from "../../types.js"
import { fromWebRequest, requestContext } from "../http/request.js"
import { type ResolvedConfig, resolvedFor } from "./resolve.js"
import type { IncomingRequest } from "../http/context.js"
import { sessionStrategy } from "../sessions/session.js"
import { accessTokenOf, tokenProvider } from "../sessions/tokens/access-token.js"

/**
 * The access token of the request's signed-in user with `providerId`, or null when nobody is signed in
 * (or the request's host is not trusted: logged, as `getSession` does). `req` is a `GET` of
 * `<basePath>/session` carrying the app request's headers. A configuration error is thrown.
 */
export async function accessTokenForRequest(req: IncomingRequest, config: ResolvedConfig, providerId: string): Promise<string | null> {
  if (config.configError) throw config.configError
  tokenProvider(config, providerId)
  // read as `GET <basePath>/session` is: a request that makes no context (an untrusted host) is logged there
  const ctx = requestContext(req, config)
  if ("response" in ctx) return null
  const read = await sessionStrategy(ctx).read(ctx)
  if (!read.body || !read.userId) return null
  return accessTokenOf(config, read.userId, providerId)
}

/**
 * A valid access token of the signed-in user's account with an OAuth/OIDC provider, for `Auth()` users
 * (Express apps use `getAccessToken` from `authchart/express`). Needs `session.providerTokens`. When
 * the token expires within `refreshMargin` (default 60 s) it is refreshed first (RFC 6749 §6), once per
 * account however many requests ask at the same time, also across instances sharing a `serverState`.
 *
 * Resolves to null when nobody is signed in or the user has no tokens from that provider. Rejects with
 * `RefreshTokenError` when the provider refused the refresh (the user must sign in again; the session
 * then carries `error: "RefreshTokenError"`), with `AccessTokenUnavailable` when no token could be had
 * right now (provider or store unreachable, a slow refresh elsewhere: try again later), and with a
 * TypeError for a provider that is not OAuth/OIDC or a config without `session.providerTokens`.
 *
 * @example
 * ```ts
 * import { getAccessToken } from "authchart"
 * const token = await getAccessToken(request, "github", authConfig)
 * const repos = token ? await fetch("https://api.github.com/user/repos", { headers: { authorization: `Bearer ${token}` } }) : null
 * ```
 */
export async function getAccessToken(request: Request, providerId: string, config: AuthConfig): Promise<string | null> {
  const resolved = resolvedFor(config)
  // a GET of `<basePath>/session` with the request's headers: the app's request body stays unread
  const url = new URL(`${resolved.basePath}/session`, request.url)
  const incoming = await fromWebRequest(new Request(url, { headers: request.headers }))
  return accessTokenForRequest(incoming, resolved, providerId)
}
