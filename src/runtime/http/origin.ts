/**
 * The one origin of a request. Every URL authchart generates (email links, `redirect_uri`, form actions,
 * redirects, `{ url }` answers) is built from it, never from `Host` on its own:
 * - a pinned public URL (`config.url`, else `AUTH_URL`) when set, always, whatever the request says;
 * - otherwise the request's own origin, only when its host is trusted: `trustHost: true` (any host: you
 *   vouch for your proxy), or a host on the `trustHost` allow-list, or any host outside production when
 *   `trustHost` is not configured (as Auth.js).
 */
import { UnknownAction, UntrustedHost } from "../../errors.js"
import { configMessages } from "../config/hints.js"
import type { AuthConfig } from "../../types.js"
import type { Env } from "../config/env.js"
import type { OriginPolicy } from "../../types/resolved.js"
export type { OriginPolicy }

/** The origin a request is answered from, or the reason it is refused. */
export type RequestOrigin =
  | { readonly ok: true; readonly origin: string; readonly secure: boolean; readonly pinnedPath: string | undefined }
  | { readonly ok: false; readonly error: UntrustedHost | UnknownAction }

function isHttp(url: URL): boolean {
  return url.protocol === "http:" || url.protocol === "https:"
}

/**
 * The origin policy of a config whose env defaults are applied (`trustHost` filled in). A pinned URL
 * that is not an http(s) URL is a configuration error.
 */
export function originPolicy(
  config: Pick<AuthConfig, "url" | "basePath" | "trustHost">,
  input: Pick<AuthConfig, "basePath">,
  env: Env,
): { policy: OriginPolicy; error: UntrustedHost | null } {
  const trust = normalizeTrust(config.trustHost)
  const raw = config.url ?? env.AUTH_URL
  if (!raw) return { policy: { pinned: undefined, trust }, error: null }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    url = new URL("invalid:")
  }
  if (!isHttp(url) || url.host === "") {
    const source = config.url !== undefined ? "`url`" : "AUTH_URL"
    return {
      policy: { pinned: undefined, trust: false },
      error: new UntrustedHost(`${source} must be an absolute http(s) URL such as https://app.example.com/auth.`),
    }
  }
  // the URL's path is the base path of generated links unless the app set basePath itself (Auth.js)
  const path = url.pathname.replace(/\/+$/, "")
  return { policy: { pinned: { origin: url.origin, path: path && !input.basePath ? path : undefined }, trust }, error: null }
}

function normalizeTrust(value: AuthConfig["trustHost"]): boolean | readonly string[] {
  if (Array.isArray(value)) return Object.freeze(value.map((h) => h.trim().toLowerCase()).filter(Boolean))
  return value === true
}

/** True when the policy can answer some request (a pinned URL, or a host that may be trusted). */
export function canServe(policy: OriginPolicy): boolean {
  return policy.pinned !== undefined || policy.trust === true || (Array.isArray(policy.trust) && policy.trust.length > 0)
}

/** True when `url`'s host is on the allow-list: exact host (port included), `*.domain`, or an origin. */
export function hostAllowed(url: URL, list: readonly string[]): boolean {
  const host = url.host.toLowerCase()
  return list.some((entry) => {
    if (entry.includes("://")) return entry.replace(/\/+$/, "") === url.origin.toLowerCase()
    if (entry.startsWith("*.")) return host.endsWith(entry.slice(1)) && host.length > entry.length - 1
    return entry === host
  })
}

/**
 * The origin to answer `requestUrl` from, under `policy`. With a pinned URL the request's protocol and
 * host are never read. Otherwise a protocol other than http(s) is a bad request (`UnknownAction`) and a
 * host that is not trusted is `UntrustedHost`.
 */
export function resolveOrigin(requestUrl: URL, policy: OriginPolicy): RequestOrigin {
  if (policy.pinned) {
    const { origin, path } = policy.pinned
    return { ok: true, origin, secure: origin.startsWith("https:"), pinnedPath: path }
  }
  if (!isHttp(requestUrl)) {
    return { ok: false, error: new UnknownAction(`The request protocol "${requestUrl.protocol}" is not http(s).`) }
  }
  const trusted = policy.trust === true || (Array.isArray(policy.trust) && hostAllowed(requestUrl, policy.trust))
  if (!trusted) {
    return {
      ok: false,
      error: new UntrustedHost(configMessages.untrustedHost(`${requestUrl.origin}${requestUrl.pathname}`)),
    }
  }
  return { ok: true, origin: requestUrl.origin, secure: requestUrl.protocol === "https:", pinnedPath: undefined }
}
