/**
 * The one place responses are made: machine replies and errors become `ResponseInternal`, and that
 * becomes an outgoing response (status, header list, body) and, for `Auth`, a web `Response`.
 */
import { AuthError, CredentialsSignin, EmailSignInError, ErrorPageLoop, isClientError } from "../../errors.js"
import type { Handled, HeaderReader, RequestContext, ResponseInternal } from "./context.js"
import { english } from "../../messages/text.js"
import { chooseLanguage } from "./language.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { type OutCookie, serializeCookie } from "./cookies.js"
import { formTargetsOf } from "../config/declarations.js"
import { type PagePolicy, originOf, pageHeaders, pageNonce } from "./pages/csp.js"
import { imageOrigins, renderError } from "./pages/index.js"
import { KeptAnswers } from "./kept.js"

export const NO_CACHE = Object.freeze({
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
})

/** The message of every configuration-error answer (Auth.js' wording). */
export const CONFIG_MESSAGE = "There was a problem with the server configuration. Check the server logs for more information."

/**
 * A response after the request was fully handled, ready for any integration to write. The body is text,
 * or a byte stream when the handler answered with a `ReadableStream` (e.g. Server-Sent Events).
 */
export interface Outgoing {
  readonly status: number
  readonly statusText: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | ReadableStream<Uint8Array>
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): ResponseInternal {
  return { status, headers: { "Content-Type": "application/json", ...(headers ?? {}) }, body }
}

/**
 * {@link json} with cookies, the key set on the fresh answer: `{ ...json(…), cookies }` would give every
 * answer a hidden class of its own (a spread followed by more keys), and a cache miss at each read of it.
 */
export function jsonWithCookies(body: unknown, cookies: OutCookie[], status = 200, headers?: Record<string, string>): ResponseInternal {
  const response = json(body, status, headers)
  response.cookies = cookies
  return response
}

/**
 * An HTML page with its security headers ({@link pageHeaders}): its policy names the nonce it was rendered
 * with. `negotiated`: the page's language came from `Accept-Language`, so caches are told (`Vary`).
 */
export function htmlPage(html: string, policy: PagePolicy, status = 200, cookies?: OutCookie[], negotiated = false): ResponseInternal {
  const headers = pageHeaders(policy)
  if (negotiated) headers.Vary = "Accept-Language"
  return { status, headers, body: html, ...(cookies ? { cookies } : {}) }
}

/** The origins of the app's custom pages (errors redirect there), per config and origin the app is served on. */
const pageOrigins = new WeakMap<ResolvedConfig, Map<string, readonly string[]>>()
/** Origins an app is served on that keep their own page origins (an unpinned app answers on each Host it is sent). */
const MAX_ORIGINS_KEPT = 16

function pagesFor(ctx: RequestContext): readonly string[] {
  let byOrigin = pageOrigins.get(ctx.config)
  if (!byOrigin) pageOrigins.set(ctx.config, (byOrigin = new Map()))
  const kept = byOrigin.get(ctx.origin)
  if (kept) return kept
  const pages: string[] = []
  for (const page of Object.values(ctx.config.pages)) {
    const origin = typeof page === "string" ? originOf(page, ctx.origin) : undefined
    if (origin) pages.push(origin)
  }
  if (byOrigin.size < MAX_ORIGINS_KEPT) byOrigin.set(ctx.origin, pages)
  return pages
}

/**
 * Where a form of a built-in page may lead, besides `'self'`: the auth routes' origin, the origins each
 * flow declares for its providers (`formTargets`: OAuth's authorization servers, since signing in POSTs
 * to `/signin/<id>` and is redirected there), the app's custom pages (errors redirect there), and
 * `callbackUrl`, where a finished sign-in lands.
 */
export function formTargets(ctx: RequestContext, callbackUrl?: string): string[] {
  const out = [ctx.origin]
  for (const [targets, providers] of formTargetsOf(ctx.config)) out.push(...targets(ctx, providers))
  out.push(...pagesFor(ctx))
  const landing = originOf(callbackUrl)
  if (landing) out.push(landing)
  return [...new Set(out)]
}

/**
 * A redirect. POST answers get 303 See Other when written (RFC 9700 §4.12), GETs 302.
 * @example
 * ```ts
 * import { redirect } from "authchart/flow"
 * const answer = async (ctx: RequestContext) => ({ response: redirect(`${ctx.authUrl}/signin`) })
 * ```
 */
export function redirect(url: string, cookies?: readonly OutCookie[]): ResponseInternal {
  return { redirect: url, ...(cookies && cookies.length > 0 ? { cookies: [...cookies] } : {}) }
}

/**
 * Answers with a redirect to the sign-in page, as Auth.js answers `POST /signin/<credentials>`: such a
 * provider signs in from its form, not from a sign-in button.
 *
 * @example
 * ```ts
 * import { showSignInPage } from "authchart/flow"
 * defineFlow({ …, answers: [{ method: "POST", action: "signin", csrf: true, answer: showSignInPage }] })
 * ```
 */
export async function showSignInPage(ctx: RequestContext): Promise<Handled> {
  return { response: redirect(`${ctx.authUrl}/signin`) }
}

/** The URL of a built-in page or its `pages` override, absolute. */
export function pageUrl(ctx: RequestContext, page: "signIn" | "error" | "signOut" | "verifyRequest"): URL {
  const custom = ctx.config.pages[page]
  if (custom) return new URL(custom, ctx.origin)
  const builtIn = { signIn: "signin", error: "error", signOut: "signout", verifyRequest: "verify-request" }[page]
  return new URL(`${ctx.authUrl}/${builtIn}`)
}

/** The built-in sign-in page's href per auth URL (as `new URL` writes it), for at most 16 auth URLs. */
const signInHrefs = new KeptAnswers<string>(MAX_ORIGINS_KEPT)

/**
 * The sign-in page's address with `callbackUrl` in its query, as {@link pageUrl} and `searchParams.set`
 * write it: a page without an override is one string, with no URL parsed (a step page links to it).
 */
export function signInHref(ctx: RequestContext, callbackUrl: string | undefined): string {
  if (ctx.config.pages.signIn) {
    const url = pageUrl(ctx, "signIn")
    if (callbackUrl) url.searchParams.set("callbackUrl", callbackUrl)
    return url.href
  }
  const href = signInHrefs.get(ctx.authUrl) ?? signInHrefs.keep(ctx.authUrl, pageUrl(ctx, "signIn").href)
  return callbackUrl ? `${href}?${callbackQuery(callbackUrl)}` : href
}

/** `callbackUrl=…` as URLSearchParams writes it, kept per callback URL (a flow's pages link with the same one): 256 URLs of at most 1,024 characters. */
const callbackQueries = new KeptAnswers<string>(256, 1024)

function callbackQuery(callbackUrl: string): string {
  return callbackQueries.get(callbackUrl) ?? callbackQueries.keep(callbackUrl, new URLSearchParams({ callbackUrl }).toString())
}

/**
 * An error as a response: logged once; POST /session answers 400 `null`; everything else redirects to the
 * sign-in or error page with `?error=<type>` (client-safe types only, else `Configuration`) and
 * `&code=` for `CredentialsSignin`. Cookies already computed (such as flow clears) are kept.
 */
export function errorResponse(ctx: RequestContext, error: unknown, cookies: readonly OutCookie[] = []): Handled {
  ctx.config.logger.error(error instanceof Error ? error : new AuthError("Non-error thrown", { err: error }))
  if (ctx.action === "session" && ctx.req.method === "POST") return { response: json(null, 400), error }
  const type = isClientError(error) ? error.type : "Configuration"
  const kind = error instanceof AuthError ? error.kind : "error"
  const url = pageUrl(ctx, kind === "signIn" ? "signIn" : "error")
  url.searchParams.set("error", type)
  if ((error instanceof CredentialsSignin || error instanceof EmailSignInError) && type === error.type) {
    url.searchParams.set("code", error.code)
  }
  return { response: redirect(url.href, cookies), error }
}

/** The built-in error page for `Configuration` (500), linking to `homeUrl` and `signInUrl`, in the request's language when `headers` are given. */
export function configErrorPage(config: ResolvedConfig, homeUrl: string, signInUrl: string, headers?: HeaderReader): ResponseInternal {
  const nonce = pageNonce()
  const { language, negotiated } = headers ? chooseLanguage(config.languages, headers) : { language: english, negotiated: false }
  const page = renderError({ error: "Configuration", homeUrl, signInUrl, theme: config.theme, nonce, language })
  return htmlPage(page.html, { nonce, images: imageOrigins([config.theme.logo]) }, page.status, undefined, negotiated)
}

/** The answer to every request while the configuration is broken (as Auth.js: 500 JSON for API actions, the error page for page GETs). */
export function configErrorResponse(ctx: RequestContext): ResponseInternal {
  const pageAction = ["signin", "signout", "error", "verify-request"].includes(ctx.action)
  if (!pageAction || ctx.req.method !== "GET") return json({ message: CONFIG_MESSAGE }, 500)
  const custom = ctx.config.pages.error
  const loop = custom !== undefined && (ctx.req.url.searchParams.get("callbackUrl") ?? "").startsWith(custom)
  if (loop) ctx.config.logger.error(new ErrorPageLoop("The custom error page itself failed."))
  if (!custom || loop) return configErrorPage(ctx.config, ctx.origin, `${ctx.authUrl}/signin`, ctx.req.headers)
  const url = new URL(custom, ctx.origin)
  url.searchParams.set("error", "Configuration")
  return redirect(url.href)
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: "OK",
  302: "Found",
  303: "See Other",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  429: "Too Many Requests",
  500: "Internal Server Error",
}

/**
 * Serialises an internal response. `X-Auth-Return-Redirect` turns a redirect into 200 `{ url }`; as in
 * Auth.js the Location header stays on a success and is left out when the redirect reports an error
 * (`failed`). Every response with a body says `nosniff`.
 */
export function toOutgoing(internal: ResponseInternal, method: string, returnRedirect: boolean, failed = false): Outgoing {
  const headers: Array<readonly [string, string]> = []
  let status = internal.status ?? 200
  let body = internal.body
  const given = internal.headers
  let contentType = given?.["Content-Type"]
  // an answer's own headers (a plain literal): no entry arrays made for them
  for (const name in given) {
    const value = given[name]
    if (name !== "Content-Type" && value !== undefined) headers.push([name, value])
  }
  if (internal.redirect !== undefined) {
    if (!(returnRedirect && failed)) headers.push(["Location", internal.redirect])
    if (returnRedirect) {
      status = 200
      body = { url: internal.redirect }
      contentType = "application/json"
    } else {
      status = method === "POST" ? 303 : 302
      body = undefined
      contentType = undefined
    }
  }
  if (contentType) {
    headers.push(["Content-Type", contentType])
    // no body is ever read as anything but its declared type (a JSON answer sniffed as HTML, a script)
    if (!headers.some(([name]) => name.toLowerCase() === "x-content-type-options")) headers.push(["X-Content-Type-Options", "nosniff"])
  }
  for (const cookie of internal.cookies ?? []) headers.push(["Set-Cookie", serializeCookie(cookie)])
  const text =
    body === undefined
      ? ""
      : body instanceof ReadableStream
        ? (body as ReadableStream<Uint8Array>)
        : contentType === "application/json"
          ? JSON.stringify(body)
          : String(body)
  return { status, statusText: STATUS_TEXT[status] ?? "", headers, body: text }
}

/** An outgoing response as a web `Response` (every `Set-Cookie` kept). */
export function toWebResponse(out: Outgoing): Response {
  const headers = new Headers()
  for (const [name, value] of out.headers) headers.append(name, value)
  const nullBody = out.status === 204 || out.status === 304
  return new Response(nullBody ? null : out.body, { status: out.status, statusText: out.statusText, headers })
}
