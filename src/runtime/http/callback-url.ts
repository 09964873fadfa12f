/**
 * Where to go after sign-in or sign-out: the `callbackUrl` of the body or query, else the callback-url
 * cookie, else the site, always through the `redirect` callback. Anything that is not an http(s) URL
 * (`javascript:`, garbage) falls back to the site, never to an error or another origin.
 */
import type { OutCookie } from "./cookies.js"
import type { RequestContext } from "./context.js"
import { param } from "./context.js"
import { KeptAnswers } from "./kept.js"

export interface CallbackUrl {
  readonly url: string
  /** Set when the resolved URL differs from the cookie. */
  readonly cookie?: OutCookie
}

/** The default redirect callback: same-origin URLs and paths only, everything else goes to the site. */
export function defaultRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  if (url.startsWith("/")) return `${baseUrl}${url}`
  try {
    if (new URL(url).origin === baseUrl) return url
  } catch {
    // not an absolute URL: fall back to the site
  }
  return baseUrl
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

/**
 * Resolves the callback URL of a request: the app's `redirect` callback when it has one, else the
 * built-in one's answer (kept per origin and URL).
 */
export async function resolveCallbackUrl(ctx: RequestContext): Promise<CallbackUrl> {
  const { fromCookie, wanted } = wantedUrl(ctx)
  if (!wanted) return withCookie(ctx, fromCookie, ctx.origin)
  const url = ctx.config.customRedirect ? await redirectTo(ctx, wanted) : defaultRedirectChecked(wanted, ctx.origin)
  return withCookie(ctx, fromCookie, url)
}

/** The longest origin counted in a kept pair's key (a resolved origin is scheme, host and port). */
const MAX_ORIGIN_LENGTH = 300

/**
 * `checked(ctx, defaultRedirect({ url, baseUrl: origin }))` with one URL parse instead of two: a path on
 * the site, or an absolute URL on the site's origin, normalised; anything else is the site.
 */
function defaultRedirectChecked(url: string, origin: string): string {
  // the origin is the resolved one (no space in it), so "origin url" names one pair
  const key = `${origin} ${url}`
  return checkedUrls.get(key) ?? checkedUrls.keep(key, redirectChecked(url, origin))
}

/**
 * {@link defaultRedirectChecked}'s answers by origin and URL (a flow's requests name the same callback
 * URL; the answer depends on nothing else): 256 pairs, URLs of at most 1,024 characters.
 */
const checkedUrls = new KeptAnswers<string>(256, MAX_ORIGIN_LENGTH + 1 + 1024)

/** How many answers {@link defaultRedirectChecked} keeps (for tests: the bound holds). */
export const keptRedirects = (): number => checkedUrls.size

function redirectChecked(url: string, origin: string): string {
  const path = url.startsWith("/")
  const candidate = path ? `${origin}${url}` : url
  let parsed: URL
  try {
    parsed = new URL(candidate)
  } catch {
    return origin
  }
  if (!path && parsed.origin !== origin) return origin
  // on the site's origin, so http(s): `checked` would keep it
  return candidate === origin ? candidate : parsed.href
}

/** The callback URL the request names (`callbackUrl` of the body or query), else its cookie's. */
function wantedUrl(ctx: RequestContext): { fromCookie: string | undefined; wanted: string | undefined } {
  const fromCookie = ctx.req.cookies[ctx.cookies.callbackUrl.name]
  return { fromCookie, wanted: param(ctx.req, "callbackUrl") ?? fromCookie }
}

/** The resolved URL, with the cookie to set when it differs from the one the request carried. */
function withCookie(ctx: RequestContext, fromCookie: string | undefined, url: string): CallbackUrl {
  const { name, options } = ctx.cookies.callbackUrl
  return url === fromCookie ? { url } : { url, cookie: { name, value: url, options } }
}

/** Sends `url` through the redirect callback, falling back to the site. */
export async function redirectTo(ctx: RequestContext, url: string): Promise<string> {
  return checked(ctx, await ctx.config.callbacks.redirect({ url, baseUrl: ctx.origin }))
}

/** What the redirect callback answered, when it is the site or an http(s) URL; else the site. */
function checked(ctx: RequestContext, resolved: unknown): string {
  if (resolved === ctx.origin) return resolved
  return (typeof resolved === "string" && httpUrl(resolved)) || ctx.origin
}
