/**
 * The answers of a refused request: 429 JSON on API routes and for the per-client ceiling, a redirect to
 * the sign-in page (`error=RateLimited`) on page routes; both with `Retry-After` and the `RateLimit` /
 * `RateLimit-Policy` fields of draft-ietf-httpapi-ratelimit-headers (structured: policy name, `q` quota,
 * `w` window, `r` remaining, `t` seconds to reset).
 */
import { RateLimited } from "../../errors.js"
import type { RateLimitRule, RateLimitRuleName } from "../../types.js"
import type { Handled, RequestContext } from "../http/context.js"
import { rateLimitMessage } from "../http/pages/signin.js"
import { chooseLanguage } from "../http/language.js"
import { NO_CACHE, json, pageUrl, redirect } from "../http/respond.js"
import { extended } from "../config/plain-object.js"

/** Routes whose callers read JSON (fetch), not pages. */
const API_ACTIONS: ReadonlySet<string> = new Set([
  "webauthn-options",
  "session",
  "csrf",
  "providers",
  "sessions",
  "accounts",
  "revoke-session",
  "revoke-other-sessions",
  "unlink-account",
  "backchannel-logout",
])

/** Routes that answer JSON to `Accept: application/json` and pages otherwise (the second-factor routes). */
const NEGOTIATED_ACTIONS: ReadonlySet<string> = new Set([
  "factors",
  "totp-enrol",
  "totp-confirm",
  "totp-remove",
  "passkey-rename",
  "passkey-delete",
  "recovery-codes",
])

const wantsJson = (ctx: RequestContext) =>
  NEGOTIATED_ACTIONS.has(ctx.action) && (ctx.req.headers.get("accept") ?? "").includes("application/json")

/** The rate-limit header fields of a refusal under `rule`. */
export function rateLimitHeaders(name: RateLimitRuleName, rule: RateLimitRule, retryAfter: number): Record<string, string> {
  return {
    "Retry-After": String(retryAfter),
    "RateLimit-Policy": `"${name}";q=${rule.max};w=${rule.window}`,
    RateLimit: `"${name}";r=0;t=${retryAfter}`,
  }
}

/** The answer to a request refused by `name`, `retryAfter` seconds before the window ends. */
export function refusal(ctx: RequestContext, name: RateLimitRuleName, rule: RateLimitRule, retryAfter: number): Handled {
  const { language } = chooseLanguage(ctx.config.languages, ctx.req.headers)
  const message = rateLimitMessage(retryAfter, language)
  const error = new RateLimited(`Refused by the ${name} rate limit for ${retryAfter} s.`)
  const headers = rateLimitHeaders(name, rule, retryAfter)
  if (name === "client" || API_ACTIONS.has(ctx.action) || wantsJson(ctx)) {
    return { response: json({ error: "RateLimited", message }, 429, { ...NO_CACHE, ...headers }), error }
  }
  const url = pageUrl(ctx, "signIn")
  url.searchParams.set("error", "RateLimited")
  url.searchParams.set("retryIn", String(Math.max(1, Math.ceil(retryAfter / 60))))
  return { response: extended(redirect(url.href), { headers }), error }
}
