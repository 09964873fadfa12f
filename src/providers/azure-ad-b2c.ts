/**
 * Sign in with Azure AD B2C (OpenID Connect).
 *
 * @example
 * ```ts
 * import AzureADB2C from "authchart/providers/azure-ad-b2c"
 * AzureADB2C({ issuer: "https://acme.b2clogin.com/00000000-0000-0000-0000-000000000000/v2.0/" }) // or set AUTH_AZURE_AD_B2C_ISSUER, with AUTH_AZURE_AD_B2C_ID and _SECRET
 * ```
 * The issuer is the user flow's (`…/<tenant id>/v2.0/`); the email is the first of the `emails` claim.
 * @see https://learn.microsoft.com/en-us/azure/active-directory-b2c/openid-connect
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { AzureADB2CProfile } from "./profiles/azure-ad-b2c.js"

export type { AzureADB2CProfile } from "./profiles/azure-ad-b2c.js"

export default function AzureADB2C(options: OAuthUserConfig<AzureADB2CProfile> = {}): OIDCConfig<AzureADB2CProfile> {
  const preset: OIDCConfig<AzureADB2CProfile> = {
    id: "azure-ad-b2c",
    name: "Azure AD B2C",
    type: "oidc",
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.preferred_username, email: profile?.emails?.[0], image: null }
    },
    style: { text: "#fff", bg: "#0072c6" },
  }
  return presetWith(preset, options)
}
