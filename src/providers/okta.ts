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
import type { OktaProfile } from "./profiles/okta.js"

export type { OktaProfile } from "./profiles/okta.js"

export default function Okta(options: OAuthUserConfig<OktaProfile> = {}): OIDCConfig<OktaProfile> {
  const preset: OIDCConfig<OktaProfile> = {
    id: "okta",
    name: "Okta",
    type: "oidc",
    // the claims the default mapping reads (Okta's declared claim types are not all OIDC's)
    profile: ({ sub, name, nickname, preferred_username, email, picture }) =>
      defaultProfile({ sub, name, nickname, preferred_username, email, picture }),
    style: { bg: "#000", text: "#fff", brandColor: "#000" },
  }
  return presetWith(preset, options)
}
