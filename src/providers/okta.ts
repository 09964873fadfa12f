/**
 * Sign in with Okta (OpenID Connect).
 *
 * @example
 * ```ts
 * import Okta from "authchart/providers/okta"
 * Okta({ issuer: "https://acme.okta.com/oauth2/default" }) // or set AUTH_OKTA_ISSUER
 * ```
 * The issuer is your Okta org or authorization server URL; endpoints come from its discovery document.
 * @see https://developer.okta.com/docs/reference/api/oidc/
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"

/** The ID token claims Okta sends with `openid profile email`. */
export interface OktaProfile {
  iss: string
  aud: string
  sub: string
  name?: string
  preferred_username?: string
  nickname?: string
  given_name?: string
  family_name?: string
  email?: string
  email_verified?: boolean
  locale?: string
  zoneinfo?: string
  [claim: string]: unknown
}

export default function Okta(options: OAuthUserConfig<OktaProfile> = {}): OIDCConfig<OktaProfile> {
  const preset: OIDCConfig<OktaProfile> = {
    id: "okta",
    name: "Okta",
    type: "oidc",
    profile: defaultProfile,
    style: { bg: "#000", text: "#fff", brandColor: "#000" },
  }
  return presetWith(preset, options)
}
