/**
 * Sign in with Beyond Identity (OpenID Connect).
 *
 * @example
 * ```ts
 * import BeyondIdentity from "authchart/providers/beyondidentity"
 * BeyondIdentity({ issuer: "https://auth-us.beyondidentity.com/v1/tenants/t/realms/r/applications/a" }) // or set AUTH_BEYONDIDENTITY_ISSUER, with AUTH_BEYONDIDENTITY_ID and _SECRET
 * ```
 * The user also carries `preferred_username`, as in Auth.js.
 * @see https://developer.beyondidentity.com/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { BeyondIdentityProfile } from "./profiles/beyondidentity.js"

export type { BeyondIdentityProfile } from "./profiles/beyondidentity.js"

export default function BeyondIdentity(options: OAuthUserConfig<BeyondIdentityProfile> = {}): OIDCConfig<BeyondIdentityProfile> {
  const preset: OIDCConfig<BeyondIdentityProfile> = {
    id: "beyondidentity",
    name: "Beyond Identity",
    type: "oidc",
    profile(profile) {
      return { id: profile.sub, email: profile.email, name: profile.name, image: null, preferred_username: profile.preferred_username }
    },
    style: { bg: "#5077c5", text: "#fff" },
  }
  return presetWith(preset, options)
}
