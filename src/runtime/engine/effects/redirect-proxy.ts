/**
 * The redirect proxy (`redirectProxyUrl` / `AUTH_REDIRECT_PROXY_URL`): preview deployments share one
 * redirect URI registered at the provider. The deployment that starts a sign-in sends the proxy's
 * callback as `redirect_uri` and puts its own callback URL, sealed with the shared secret, into `state`.
 * The proxy opens the state and forwards the provider's answer to that deployment, which validates it
 * against its own flow state as usual. The proxy learns nothing it could use: no flow state lives there.
 */
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import { randomBytes } from "node:crypto"
import type { Handled } from "../../../types/request.js"
import type { RequestServices } from "../../../types/flow.js"
import { redirect } from "../../http/respond.js"

const SALT = "authchart.redirect-proxy-state"
const STATE_TTL_S = 900

/** The proxy URL for a provider (its own setting, else the config's), except for form_post providers. */
export function proxyOf(services: RequestServices, provider: OAuthConfig): URL | undefined {
  const value = provider.redirectProxyUrl ?? services.redirectProxyUrl
  const authorization = provider.authorization
  if (typeof authorization === "object" && authorization.params?.response_mode === "form_post") return undefined
  return value ? new URL(value) : undefined
}

/** A `state` that carries the starting deployment's callback URL, sealed (and random). */
export function sealProxyState(services: RequestServices, callbackUrl: string): Promise<string> {
  return services.seal({ origin: callbackUrl, r: randomBytes(16).toString("base64url") }, SALT, STATE_TTL_S)
}

/**
 * On the proxy itself: a callback whose state names another deployment is forwarded there with all
 * its parameters (302). Anything else (no state, not sealed by us, our own origin) is left alone.
 */
export async function forwardFromProxy(services: RequestServices): Promise<Handled | undefined> {
  const provider = services.provider.config
  const proxy = provider.type === "oauth" || provider.type === "oidc" ? proxyOf(services, provider) : undefined
  if (!proxy || proxy.origin !== services.origin) return undefined
  const params = new URLSearchParams(services.url.search)
  const state = params.get("state")
  const claims = state ? await services.unseal(state, SALT) : null
  if (!claims || typeof claims.origin !== "string" || !URL.canParse(claims.origin)) return undefined
  const target = new URL(claims.origin)
  if (target.origin === services.origin) return undefined
  services.logger.debug("redirect proxy forwarding", { to: target.origin })
  target.search = params.toString()
  return { response: redirect(target.href) }
}
