/**
 * Where to go after sign-in or sign-out: the `callbackUrl` of the body or query, else the callback-url
 * cookie, else the site, always through the `redirect` callback. Anything that is not an http(s) URL
 * (`javascript:`, garbage) falls back to the site, never to an error or another origin.
 */
import type { OutCookie } from "./cookies.js"
import type { RequestContext } from "./context.js"
import { param } from "./context.js"

export interface CallbackUrl {
  readonly url: string
  /** Set when the resolved URL differs from the cookie. */
  readonly cookie?: OutCookie
}

/** `value` normalised (no raw backslashes reach a Location header) when it is an http(s) URL. */
function httpUrl(value: string): string | undefined {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}

/** Resolves the callback URL of a request (async: the redirect callback may be). */
export async function resolveCallbackUrl(ctx: RequestContext): Promise<CallbackUrl> {
  const { name, options } = ctx.cookies.callbackUrl
  const fromCookie = ctx.req.cookies[name]
  const wanted = param(ctx.req, "callbackUrl") ?? fromCookie
  const url = wanted ? await redirectTo(ctx, wanted) : ctx.origin
  return url === fromCookie ? { url } : { url, cookie: { name, value: url, options } }
}

/** Sends `url` through the redirect callback, falling back to the site. */
export async function redirectTo(ctx: RequestContext, url: string): Promise<string> {
  const resolved = await ctx.config.callbacks.redirect({ url, baseUrl: ctx.origin })
  if (resolved === ctx.origin) return resolved
  return (typeof resolved === "string" && httpUrl(resolved)) || ctx.origin
}
