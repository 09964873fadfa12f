/**
 * The authorization request's URL (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core §3.1.2.1): the
 * endpoint's own query, the provider's configured parameters, the ones a sign-in request may add, the
 * default scope, then `response_type`, `client_id`, `redirect_uri` and this sign-in's `state`, PKCE
 * challenge and `nonce`. Everything before the sign-in's own values is the same for every sign-in that
 * adds no parameter of its own, so that part is serialised once per provider, server and redirect URI,
 * and such a sign-in only appends its three values: the very URL the general path builds.
 */
import type * as o from "oauth4webapi"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import { endpoint } from "../../oauth/server.js"

/** Authorization parameters a sign-in request may add (RFC 9700: never redirect_uri, client_id, …). */
const ALLOWED_PARAMS = new Set(["prompt", "login_hint", "ui_locales", "acr_values", "max_age", "scope", "display", "hd"])
const FIXED_PARAMS = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "response_mode",
  "request",
  "request_uri",
])
/** The parameters each sign-in appends; a serialised base that already has one of them is not used. */
const PER_SIGN_IN = ["state", "code_challenge", "code_challenge_method", "nonce"]
/** Values that form-urlencoding leaves as they are (base64url, and the dots of a sealed proxy state). */
const AS_IS = /^[A-Za-z0-9._-]+$/

/** One sign-in's own values: the exact redirect URI, `state`, the PKCE S256 challenge, the `nonce` (or none). */
export interface SignInChecks {
  readonly redirectUri: string
  readonly state: string
  readonly codeChallenge: string
  readonly nonce: string | null
}

/** The sign-in request's parameters that go into the authorization request (Auth.js' `authorizationParams`). */
function requestParams(provider: OAuthConfig, params: Readonly<Record<string, unknown>>): [string, string][] {
  const added: [string, string][] = []
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string" || FIXED_PARAMS.has(key)) continue
    if (ALLOWED_PARAMS.has(key) || provider.allowedAuthorizationParams?.includes(key)) added.push([key, value])
  }
  return added
}

/** The URL and query up to `redirect_uri`: everything but the sign-in's `state`, challenge and `nonce`. */
function baseQuery(provider: OAuthConfig, endpointUrl: string, added: readonly [string, string][], redirectUri: string) {
  const url = new URL(endpointUrl)
  // built apart and written into the URL once: each `url.searchParams.set` would re-serialise the URL
  const query = new URLSearchParams(url.search)
  for (const [key, value] of Object.entries(endpoint(provider.authorization).params)) query.set(key, value)
  for (const [key, value] of added) {
    if (key === "scope") {
      const scopes = new Set([...(query.get("scope") ?? "").split(" "), ...value.split(" ")])
      query.set("scope", [...scopes].filter(Boolean).join(" "))
    } else query.set(key, value)
  }
  if (provider.type === "oidc" && !query.has("scope")) query.set("scope", "openid profile email")
  query.set("response_type", "code")
  query.set("client_id", provider.clientId ?? "")
  query.set("redirect_uri", redirectUri)
  return { url, query }
}

/** A provider's serialised base, with what it was made from; `prefix` null where it cannot be used. */
interface Base {
  readonly server: o.AuthorizationServer
  readonly redirectUri: string
  readonly prefix: string | null
}

const bases = new WeakMap<OAuthConfig, Base>()

function baseOf(provider: OAuthConfig, server: o.AuthorizationServer, endpointUrl: string, redirectUri: string): Base {
  const known = bases.get(provider)
  if (known && known.server === server && known.redirectUri === redirectUri) return known
  const { url, query } = baseQuery(provider, endpointUrl, [], redirectUri)
  // a fragment would end up after the appended values; a per-sign-in key already set would keep its place
  const usable = url.hash === "" && !PER_SIGN_IN.some((key) => query.has(key))
  url.search = query.toString()
  const base = { server, redirectUri, prefix: usable ? url.href : null }
  bases.set(provider, base)
  return base
}

/**
 * The authorization URL of one sign-in.
 * @example const url = authorizationUrl(provider, server, server.authorization_endpoint, input.params, { redirectUri, state, codeChallenge, nonce })
 */
export function authorizationUrl(
  provider: OAuthConfig,
  server: o.AuthorizationServer,
  endpointUrl: string,
  params: Readonly<Record<string, unknown>>,
  checks: SignInChecks,
): string {
  const { redirectUri, state, codeChallenge, nonce } = checks
  const added = requestParams(provider, params)
  const prefix = added.length === 0 && AS_IS.test(state) ? baseOf(provider, server, endpointUrl, redirectUri).prefix : null
  if (prefix !== null)
    return `${prefix}&state=${state}&code_challenge=${codeChallenge}&code_challenge_method=S256${nonce ? `&nonce=${nonce}` : ""}`
  const { url, query } = baseQuery(provider, endpointUrl, added, redirectUri)
  query.set("state", state)
  query.set("code_challenge", codeChallenge)
  query.set("code_challenge_method", "S256")
  if (nonce) query.set("nonce", nonce)
  url.search = query.toString()
  return url.href
}
