/**
 * Sign in with IdentityServer4 (OpenID Connect).
 *
 * @example
 * ```ts
 * import IdentityServer4 from "authchart/providers/identity-server4"
 * IdentityServer4({ issuer: "https://identity.acme.example" }) // or set AUTH_IDENTITY_SERVER4_ISSUER, with AUTH_IDENTITY_SERVER4_ID and _SECRET
 * ```
 * @see https://identityserver4.readthedocs.io/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { Profile } from "../types.js"

export default function IdentityServer4(options: OAuthUserConfig<Profile> = {}): OIDCConfig<Profile> {
  const preset: OIDCConfig<Profile> = {
    id: "identity-server4",
    name: "IdentityServer4",
    type: "oidc",
  }
  return presetWith(preset, options)
}
