/**
 * The security headers of every HTML page authchart serves: a Content-Security-Policy that allows only
 * what the page itself uses (its own `<style>` and `<script>` by a per-response nonce, the origins its
 * forms may lead to, its images, its fetches), never framed, sending no referrer, sniffing nothing.
 *
 * @module
 */
import { randomBytes } from "../../crypto/random.js"
import { KeptAnswers } from "../kept.js"

/** What one page may use, besides nothing (`default-src 'none'`). */
export interface PagePolicy {
  /** The per-response nonce on the page's `<style>` and `<script>` elements. */
  readonly nonce: string
  /**
   * Where the page's forms may go, as origins, besides `'self'`. `form-action` covers the redirects
   * that follow a submission too (Chromium), so the chain of a form POST must be listed whole. `[]` gives
   * `'self'` only; leaving it out (a page without forms) gives `'none'`.
   */
  readonly formAction?: readonly string[]
  /** Origins the page's script fetches from (`connect-src`); left out, the page fetches nothing. */
  readonly connect?: readonly string[]
  /** Origins of the page's images besides `'self'` (provider and theme logos). */
  readonly images?: readonly string[]
  /**
   * Allow `style="…"` attributes (`style-src-attr 'unsafe-inline'`). Only the inspector needs it, for the
   * positions Mermaid writes into its SVGs; attributes cannot carry a nonce.
   */
  readonly styleAttributes?: boolean
}

/** A fresh nonce for one response: 128 random bits, base64. */
export function pageNonce(): string {
  return randomBytes(16).toString("base64")
}

/** `first` (when given) then `list`, each source once, in order, space-separated (no array or Set per call). */
function sources(first: string | undefined, list: readonly string[] | undefined): string {
  let out = first ?? ""
  let written = first !== undefined
  if (!list) return out
  for (let i = 0; i < list.length; i++) {
    const source = list[i] as string
    if ((written && source === first) || list.indexOf(source) < i) continue
    out = written ? `${out} ${source}` : source
    written = true
  }
  return out
}

/**
 * The `Content-Security-Policy` value of a page.
 *
 * @example
 * contentSecurityPolicy({ nonce: "abc", formAction: ["https://github.com"] })
 * // "default-src 'none'; script-src 'nonce-abc'; style-src 'nonce-abc'; img-src 'self'; form-action 'self' https://github.com; frame-ancestors 'none'; base-uri 'none'"
 */
export function contentSecurityPolicy(policy: PagePolicy): string {
  const nonce = `'nonce-${policy.nonce}'`
  const style = policy.styleAttributes
    ? `style-src ${nonce}; style-src-elem ${nonce}; style-src-attr 'unsafe-inline'`
    : `style-src ${nonce}`
  const connect = policy.connect ? `; connect-src ${sources(undefined, policy.connect)}` : ""
  const formAction = policy.formAction ? sources("'self'", policy.formAction) : "'none'"
  return `default-src 'none'; script-src ${nonce}; ${style}; img-src ${sources("'self'", policy.images)}${connect}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`
}

/**
 * Every header of an HTML page: the policy above, `X-Frame-Options: DENY` for browsers that predate
 * `frame-ancestors`, `Referrer-Policy: no-referrer` (page URLs can carry a `callbackUrl` or an email
 * address), `X-Content-Type-Options: nosniff`, and no caching.
 */
export function pageHeaders(policy: PagePolicy): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": contentSecurityPolicy(policy),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-cache, no-store",
  }
}

/**
 * The origin of `url` (absolute, or relative to `base`), or undefined when it is not an http(s) URL. An
 * absolute URL's origin is kept for the next pages (a flow's callback URL is the same for most of its
 * requests): no URL parsed for it again (bounded, see `origins`).
 */
export function originOf(url: string | URL | undefined, base?: string): string | undefined {
  if (url === undefined) return undefined
  if (base !== undefined || typeof url !== "string") return parsedOrigin(url, base)
  const kept = origins.get(url)
  if (kept !== undefined) return kept === NOT_HTTP ? undefined : kept
  const origin = parsedOrigin(url, undefined)
  origins.keep(url, origin ?? NOT_HTTP)
  return origin
}

/** Absolute URLs' origins: 256 URLs of at most 1,024 characters (longer ones are parsed every time). */
const origins = new KeptAnswers<string>(256, 1024)
/** Kept for a URL that is not http(s) or not a URL (no origin is the empty string). */
const NOT_HTTP = ""

/** How many absolute URLs' origins {@link originOf} keeps (for tests: the bound holds). */
export const keptOrigins = (): number => origins.size

function parsedOrigin(url: string | URL, base: string | undefined): string | undefined {
  try {
    const parsed = new URL(url, base)
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : undefined
  } catch {
    return undefined
  }
}
