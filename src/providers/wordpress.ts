/**
 * Sign in with WordPress.com (OAuth 2).
 *
 * @example
 * ```ts
 * import WordPress from "authchart/providers/wordpress"
 * WordPress() // reads AUTH_WORDPRESS_ID and AUTH_WORDPRESS_SECRET
 * ```
 * Asks for `auth`. The id is the numeric user `ID` as a string.
 * @see https://developer.wordpress.com/docs/oauth2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The current user, from `GET https://public-api.wordpress.com/rest/v1/me`. */
export interface WordPressProfile {
  ID: number
  display_name: string
  username: string
  email: string
  primary_blog?: number
  language?: string
  avatar_URL?: string
  profile_URL?: string
  verified?: boolean
  email_verified?: boolean
  [field: string]: unknown
}

export default function WordPress(options: OAuthUserConfig<WordPressProfile> = {}): OAuthConfig<WordPressProfile> {
  return presetWith<WordPressProfile>(
    {
      id: "wordpress",
      name: "WordPress.com",
      type: "oauth",
      authorization: "https://public-api.wordpress.com/oauth2/authorize?scope=auth",
      token: "https://public-api.wordpress.com/oauth2/token",
      userinfo: "https://public-api.wordpress.com/rest/v1/me",
      profile: (profile) => ({
        id: String(profile.ID),
        name: profile.display_name || profile.username || null,
        email: profile.email ?? null,
        image: profile.avatar_URL ?? null,
      }),
      style: { bg: "#3499cd", text: "#fff", brandColor: "#3499cd" },
    },
    options,
  )
}
