/**
 * Sign in with Medium (OAuth 2).
 *
 * @example
 * ```ts
 * import Medium from "authchart/providers/medium"
 * Medium() // reads AUTH_MEDIUM_ID and AUTH_MEDIUM_SECRET
 * ```
 * Asks for `basicProfile`; Medium shares no email address.
 * @see https://github.com/Medium/medium-api-docs
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The user, from `GET /v1/me` (wrapped in `data`). */
export interface MediumProfile {
  data: { id: string; username: string; name: string; url?: string; imageUrl: string; [field: string]: unknown }
  [field: string]: unknown
}

export default function Medium(options: OAuthUserConfig<MediumProfile> = {}): OAuthConfig<MediumProfile> {
  const preset: OAuthConfig<MediumProfile> = {
    id: "medium",
    name: "Medium",
    type: "oauth",
    authorization: "https://medium.com/m/oauth/authorize?scope=basicProfile",
    token: "https://api.medium.com/v1/tokens",
    userinfo: "https://api.medium.com/v1/me",
    profile(profile) {
      return { id: profile.data.id, name: profile.data.name, email: null, image: profile.data.imageUrl }
    },
  }
  return presetWith(preset, options)
}
