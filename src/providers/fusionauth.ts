/**
 * Sign in with FusionAuth (OpenID Connect).
 *
 * @example
 * ```ts
 * import FusionAuth from "authchart/providers/fusionauth"
 * FusionAuth({ issuer: "https://auth.acme.example", tenantId: "2f7f…" })
 * ```
 * Asks for `openid offline_access email profile`; sends PKCE and `state`, no nonce. With `tenantId`
 * discovery and the authorization request name the tenant. A token error answered with a
 * `WWW-Authenticate` header other than 401's is read as the error body it carries.
 * @see https://fusionauth.io/docs/lifecycle/authenticate-users/oauth/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { FusionAuthProfile } from "./profiles/fusionauth.js"

export type { FusionAuthProfile } from "./profiles/fusionauth.js"

/** Options of {@link FusionAuth}: the usual provider options, plus the tenant. */
export type FusionAuthOptions<P extends FusionAuthProfile = FusionAuthProfile> = OAuthUserConfig<P> & { tenantId?: string }

export default function FusionAuth<P extends FusionAuthProfile = FusionAuthProfile>(options: FusionAuthOptions<P> = {}): OAuthConfig<P> {
  const { issuer, tenantId } = options
  const preset: OAuthConfig<P> = {
    id: "fusionauth",
    name: "FusionAuth",
    type: "oidc",
    issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    wellKnown: `${issuer}/.well-known/openid-configuration${tenantId ? `?tenantId=${tenantId}` : ""}`,
    authorization: { params: { scope: "openid offline_access email profile", ...(tenantId ? { tenantId } : {}) } },
    userinfo: `${issuer}/oauth2/userinfo`,
    token: { url: `${issuer}/oauth2/token`, conform: withoutChallenge },
    checks: ["pkce", "state"],
    profile(profile) {
      const name =
        profile.name ??
        profile.preferred_username ??
        [profile.given_name, profile.middle_name, profile.family_name].filter((x) => x).join(" ")
      return { id: profile.sub, email: profile.email, name, image: profile.picture }
    },
  }
  return presetWith(preset, options)
}

/** A token answer without `WWW-Authenticate` (except a 401's), so its error body is what gets read. */
function withoutChallenge(response: Response): Response {
  if (response.status === 401) return response
  const headers = new Headers(response.headers)
  headers.delete("www-authenticate")
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}
