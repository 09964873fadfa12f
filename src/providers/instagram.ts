/**
 * Sign in with Instagram (OAuth 2).
 *
 * @example
 * ```ts
 * import Instagram from "authchart/providers/instagram"
 * Instagram() // reads AUTH_INSTAGRAM_ID and AUTH_INSTAGRAM_SECRET
 * ```
 * Asks for `user_profile`; Instagram shares no email address or picture.
 * @see https://developers.facebook.com/docs/instagram-basic-display-api/getting-started
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The user, from Graph's `GET /me?fields=id,username,account_type,name`. */
export interface InstagramProfile {
  id: string
  username: string
  account_type?: string
  name?: string
  [field: string]: unknown
}

export default function Instagram(options: OAuthUserConfig<InstagramProfile> = {}): OAuthConfig<InstagramProfile> {
  const preset: OAuthConfig<InstagramProfile> = {
    id: "instagram",
    name: "Instagram",
    type: "oauth",
    authorization: "https://api.instagram.com/oauth/authorize?scope=user_profile",
    token: "https://api.instagram.com/oauth/access_token",
    userinfo: "https://graph.instagram.com/me?fields=id,username,account_type,name",
    client: { token_endpoint_auth_method: "client_secret_post" },
    async profile(profile) {
      return { id: profile.id, name: profile.username, email: null, image: null }
    },
    style: { bg: "#fff", text: "#000" },
  }
  return presetWith(preset, options)
}
