/**
 * The provider metadata logout needs, from discovery only (OpenID Connect Discovery 1.0 §3):
 * `end_session_endpoint` (RP-Initiated Logout 1.0 §2.1) and `jwks_uri`. A plain-`http:` URL is used
 * only where the provider's other endpoints could be (loopback, or `allowInsecureRequests`).
 */
import * as o from "oauth4webapi"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { RequestContext } from "../../http/context.js"
import { discover, discoveryCache, httpOptions } from "../../oauth/server.js"

/** The discovered URL named `field`, or undefined when the provider has no issuer or no such entry. */
export async function discoveredUrl(
  ctx: RequestContext,
  provider: OAuthConfig,
  field: "end_session_endpoint" | "jwks_uri",
): Promise<URL | undefined> {
  if (!provider.issuer) return undefined
  const value = (await discover(provider, discoveryCache(ctx.config), ctx.now))[field]
  if (typeof value !== "string") return undefined
  const url = new URL(value)
  if (url.protocol === "https:" || (url.protocol === "http:" && httpOptions(provider, url)[o.allowInsecureRequests])) return url
  throw new TypeError(`The ${field} of "${provider.id}" is not an https URL.`)
}

/** The issuer a provider's tokens must name: the discovered one. */
export async function discoveredIssuer(ctx: RequestContext, provider: OAuthConfig): Promise<string> {
  return (await discover(provider, discoveryCache(ctx.config), ctx.now)).issuer
}
