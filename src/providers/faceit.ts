/**
 * Sign in with FACEIT (OAuth 2).
 *
 * @example
 * ```ts
 * import FACEIT from "authchart/providers/faceit"
 * FACEIT() // reads AUTH_FACEIT_ID and AUTH_FACEIT_SECRET
 * ```
 * The client authenticates at the token endpoint with HTTP Basic, the default.
 * @see https://docs.faceit.com/docs/auth/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The user, from FACEIT's `userinfo` resource. */
export interface FACEITProfile {
  guid: string
  name: string
  email: string
  picture: string
  [field: string]: unknown
}

export default function FACEIT(options: OAuthUserConfig<FACEITProfile> = {}): OAuthConfig<FACEITProfile> {
  const preset: OAuthConfig<FACEITProfile> = {
    id: "faceit",
    name: "FACEIT",
    type: "oauth",
    authorization: "https://accounts.faceit.com/accounts?redirect_popup=true",
    token: "https://api.faceit.com/auth/v1/oauth/token",
    userinfo: "https://api.faceit.com/auth/v1/resources/userinfo",
    profile(profile) {
      return { id: profile.guid, name: profile.name, email: profile.email, image: profile.picture }
    },
  }
  return presetWith(preset, options)
}
