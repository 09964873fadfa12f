/**
 * Sign in with SAML single sign-on through BoxyHQ SAML Jackson (an OAuth 2 front for SAML identity
 * providers).
 *
 * @example
 * ```ts
 * import BoxyHQSAML from "authchart/providers/boxyhq-saml"
 * BoxyHQSAML({ issuer: "https://jackson.acme.example", clientId: "dummy", clientSecret: "dummy" })
 * ```
 * The `issuer` is your Jackson deployment; its `/api/oauth/*` endpoints speak plain OAuth 2, so the
 * SAML exchange happens there and authchart needs nothing SAML-specific. Pass the tenant and product
 * in the sign-in's authorization parameters (`tenant`, `product`), as with Auth.js.
 * @see https://boxyhq.com/docs/jackson/overview
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { BoxyHQSAMLProfile } from "./profiles/boxyhq-saml.js"

export type { BoxyHQSAMLProfile } from "./profiles/boxyhq-saml.js"

export default function SAMLJackson<P extends BoxyHQSAMLProfile = BoxyHQSAMLProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  const base = options.issuer
  const preset: OAuthConfig<P> = {
    id: "boxyhq-saml",
    name: "BoxyHQ SAML",
    type: "oauth",
    authorization: { url: `${base}/api/oauth/authorize`, params: { provider: "saml" } },
    token: `${base}/api/oauth/token`,
    userinfo: `${base}/api/oauth/userinfo`,
    profile(profile) {
      const name = [profile.firstName, profile.lastName].filter(Boolean).join(" ")
      return { id: profile.id, email: profile.email, name, image: null }
    },
    style: { brandColor: "#25c2a0" },
  }
  return presetWith(preset, options)
}
