/**
 * `requireRecentAuth`: lets a request through when its session's last proof (`authTime`) is at most
 * `maxAge` seconds old; otherwise says where to send the user: the re-authentication
 * (`<basePath>/reauth`) when someone is signed in, the sign-in page when nobody is, each with the
 * request's own URL as the callback, so the user comes back to it.
 */
import type { AuthConfig, Session } from "../../types.js"
import { type ResolvedConfig, resolvedFor } from "./resolve.js"
import { fromWebRequest, requestContext } from "../http/request.js"
import type { IncomingRequest } from "../http/context.js"
import { type OutCookie, serializeCookie } from "../http/cookies.js"
import { signInHref } from "../http/respond.js"
import { sessionStrategy } from "../sessions/session.js"
import { sessionUserId } from "../sessions/signed-in.js"
import { isRecent, proofOf } from "../factors/recent-auth.js"
import { STEP_UP_ACTION } from "../engine/step-up.js"

/**
 * Options of `requireRecentAuth`.
 * @example const options: RecentAuthOptions = { maxAge: 5 * 60 }
 */
export interface RecentAuthOptions {
  /** Seconds since the session's last proof (sign-in or re-authentication) that still count as recent. */
  maxAge: number
}

/**
 * What `requireRecentAuth` decided. `ok`: the session and its proof time; otherwise `redirect` is where
 * to send the user (`reason` says which: `"signin"` when nobody is signed in, `"reauth"` when the proof
 * is too old or unknown). Send `setCookie` back either way (a refreshed or cleared session cookie).
 * @example if (!check.ok) return Response.redirect(check.redirect, 303)
 */
export type RecentAuth =
  | { readonly ok: true; readonly session: Session; readonly authTime: number; readonly setCookie: string[] }
  | { readonly ok: false; readonly reason: "signin" | "reauth"; readonly redirect: string; readonly setCookie: string[] }

/** The runtime half of `requireRecentAuth`, for integrations: the request already parsed. */
export async function recentAuthFor(
  incoming: IncomingRequest,
  config: ResolvedConfig,
  options: RecentAuthOptions,
): Promise<RecentAuth & { readonly cookies: readonly OutCookie[] }> {
  if (!(Number.isFinite(options.maxAge) && options.maxAge >= 0)) {
    throw new TypeError("requireRecentAuth: maxAge must be a number of seconds, 0 or more.")
  }
  if (config.configError) throw config.configError
  const url = new URL(`${config.basePath}/session`, incoming.url)
  const ctx = requestContext({ ...incoming, url, method: "GET" }, config)
  if ("response" in ctx) throw config.configError ?? new TypeError("requireRecentAuth: the request names no usable origin.")
  // back to the page that asked, on the site's own origin
  const back = new URL(`${incoming.url.pathname}${incoming.url.search}`, ctx.origin).href
  const read = await sessionStrategy(ctx).read(ctx)
  const cookies = read.cookies
  const setCookie = cookies.map(serializeCookie)
  const who = read.body ? await sessionUserId(ctx).catch(() => undefined) : undefined
  if (!read.body || !who) return { ok: false, reason: "signin", redirect: signInHref(ctx, back), setCookie, cookies }
  const at = await proofOf(ctx, { ...who, cookies })
  if (at !== null && isRecent(at, options.maxAge, ctx.now)) return { ok: true, session: read.body, authTime: at, setCookie, cookies }
  const reauth = new URL(`${ctx.authUrl}/${STEP_UP_ACTION}`)
  reauth.searchParams.set("callbackUrl", back)
  return { ok: false, reason: "reauth", redirect: reauth.href, setCookie, cookies }
}

/**
 * Requires a recent proof of who the user is before a sensitive action: passes when the request's
 * session was signed in or re-authenticated at most `maxAge` seconds ago; otherwise answers where to
 * send the user: the re-authentication page (`<basePath>/reauth`, password or TOTP code of the same
 * user) for an older session or one without a proof time (written by Auth.js), the sign-in page when
 * nobody is signed in. Either comes back to this request's URL. Express: the form in
 * `authchart/express` takes `(req, config, options, res)`.
 *
 * @example
 * ```ts
 * import { requireRecentAuth } from "authchart"
 * const check = await requireRecentAuth(request, authConfig, { maxAge: 5 * 60 })
 * if (!check.ok) return new Response(null, { status: 303, headers: { location: check.redirect } })
 * // check.session is the signed-in user's session; go on with the sensitive action
 * ```
 */
export async function requireRecentAuth(request: Request, config: AuthConfig, options: RecentAuthOptions): Promise<RecentAuth> {
  const resolved = resolvedFor(config)
  const { cookies: _, ...result } = await recentAuthFor(await fromWebRequest(request), resolved, options)
  return result
}
