/**
 * Sign in with Duende IdentityServer 6 (OpenID Connect).
 *
 * @example
 * ```ts
 * import DuendeIdentityServer6 from "authchart/providers/duende-identity-server6"
 * DuendeIdentityServer6({ issuer: "https://demo.duendesoftware.com" }) // or set AUTH_DUENDE_IDENTITY_SERVER6_ISSUER, with AUTH_DUENDE_IDENTITY_SERVER6_ID and _SECRET
 * ```
 * @see https://docs.duendesoftware.com/identityserver/v6
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { DuendeISUser } from "./profiles/duende-identity-server6.js"

export type { DuendeISUser } from "./profiles/duende-identity-server6.js"

export default function DuendeIdentityServer6(options: OAuthUserConfig<DuendeISUser> = {}): OIDCConfig<DuendeISUser> {
  const preset: OIDCConfig<DuendeISUser> = {
    id: "duende-identity-server6",
    name: "DuendeIdentityServer6",
    type: "oidc",
  }
  return presetWith(preset, options)
}
