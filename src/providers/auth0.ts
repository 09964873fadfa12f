/**
 * Sign in with Auth0 (OpenID Connect).
 *
 * @example
 * ```ts
 * import Auth0 from "authchart/providers/auth0"
 * Auth0({ issuer: "https://acme.eu.auth0.com" }) // or set AUTH_AUTH0_ISSUER
 * ```
 * The issuer is your tenant's domain; endpoints come from its discovery document.
 * @see https://auth0.com/docs/authenticate/protocols/openid-connect-protocol
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { Auth0Profile } from "./profiles/auth0.js"

export type { Auth0Profile } from "./profiles/auth0.js"

export default function Auth0(options: OAuthUserConfig<Auth0Profile> = {}): OIDCConfig<Auth0Profile> {
  const preset: OIDCConfig<Auth0Profile> = {
    id: "auth0",
    name: "Auth0",
    type: "oidc",
    profile: defaultProfile,
    style: { bg: "#fff", text: "#eb5424", brandColor: "#eb5424" },
  }
  return presetWith(preset, options)
}
