/**
 * `sessionCookie(config, user | { token })`: the `Cookie` header of a signed-in request, made the way a
 * real sign-in makes it, for tests of an app's protected routes that should not walk a sign-in first.
 */
import { encode } from "../jwt.js"
import { resolvedFor } from "../runtime/front/resolve.js"
import type { RequestContext } from "../runtime/http/context.js"
import { type OutCookie, parseCookies, writeChunked } from "../runtime/http/cookies.js"
import { sessionStrategy } from "../runtime/sessions/session.js"
import type { AuthConfig, JWT, User } from "../types.js"

/** Options of {@link sessionCookie}. */
export interface SessionCookieOptions {
  /** The app's URL: an `https:` one gives the `__Secure-` cookie name. Default `AUTH_URL`, else `http://localhost`. */
  url?: string | URL
}

/**
 * A `Cookie` header value (`authjs.session-token=…`, chunks joined by `; `) carrying a valid session.
 *
 * - JWT strategy, given a user: the token a sign-in issues (your `jwt` callback runs with
 *   `trigger: "signIn"`), encrypted with the config's newest secret under the session cookie's name.
 * - JWT strategy, given `{ token }`: exactly that payload (plus `iat`, `exp`, `jti`).
 * - Database strategy, given a user: the user is created through the adapter when it has no `id` or
 *   the adapter does not know it, then a session is created for it; the cookie holds its token.
 *
 * @example
 * ```ts
 * import { sessionCookie } from "authchart/testing"
 * const cookie = await sessionCookie(authConfig, { id: "u1", name: "Ada", email: "ada@example.test" })
 * const response = await fetch(`${baseUrl}/account`, { headers: { cookie } })
 * ```
 */
export async function sessionCookie(
  config: AuthConfig,
  subject: User | { token: JWT },
  options: SessionCookieOptions = {},
): Promise<string> {
  const ctx = contextFor(config, options)
  if (ctx.config.configError) throw ctx.config.configError
  let cookies: readonly OutCookie[]
  if ("token" in subject) {
    if (ctx.config.session.strategy === "database") {
      throw new TypeError("sessionCookie: with the database strategy, give a user (a session is created for it), not a token.")
    }
    cookies = await encodedToken(ctx, subject.token)
  } else {
    const user = ctx.config.session.strategy === "database" ? await storedUser(ctx, subject) : subject
    cookies = await sessionStrategy(ctx).issue(ctx, { user, account: null })
  }
  const set = cookies.filter((c) => c.value !== "")
  if (set.length === 0) throw new Error("sessionCookie: no session was issued (did the jwt callback return null?).")
  return set.map((c) => `${c.name}=${encodeURIComponent(c.value)}`).join("; ")
}

/** A request context for a sign-in at the app's URL, as the runtime builds one per request. */
function contextFor(config: AuthConfig, options: SessionCookieOptions): RequestContext {
  const resolved = resolvedFor(config)
  const url = new URL(options.url ?? process.env.AUTH_URL ?? "http://localhost")
  const secure = resolved.useSecureCookies ?? url.protocol === "https:"
  const headers = new Headers()
  return {
    config: resolved,
    req: { method: "GET", url, headers, cookies: parseCookies(null), body: undefined, headerEntries: () => headers.entries() },
    action: "session",
    providerId: undefined,
    provider: undefined,
    origin: url.origin,
    basePath: resolved.basePath,
    authUrl: `${url.origin}${resolved.basePath}`,
    secure,
    cookies: secure ? resolved.cookies.secure : resolved.cookies.plain,
    now: Date.now(),
  }
}

async function encodedToken(ctx: RequestContext, token: JWT): Promise<OutCookie[]> {
  const { name, options } = ctx.cookies.sessionToken
  const { maxAge } = ctx.config.jwt
  const params = { token, salt: name, secret: [...ctx.config.secrets], maxAge }
  const value = await (ctx.config.jwt.encode ?? encode)(params)
  const expires = new Date(ctx.now + maxAge * 1000)
  return writeChunked({}, name, value, { ...options, expires })
}

/** The adapter's record of `user`, created when the adapter does not know it. */
async function storedUser(ctx: RequestContext, user: User): Promise<User> {
  const { adapter } = ctx.config
  if (!adapter?.createUser) throw new TypeError("sessionCookie: the database strategy needs an adapter with createUser.")
  const known = user.id ? await adapter.getUser?.(user.id) : null
  if (known) return known
  return adapter.createUser({ ...user, id: user.id ?? crypto.randomUUID(), email: user.email ?? "", emailVerified: null })
}
