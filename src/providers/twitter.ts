/**
 * Sign in with X, formerly Twitter (OAuth 2).
 *
 * @example
 * ```ts
 * import Twitter from "authchart/providers/twitter"
 * Twitter() // reads AUTH_TWITTER_ID and AUTH_TWITTER_SECRET
 * ```
 * Asks for `users.read tweet.read offline.access`. X sends an email only to apps allowed to ask
 * for it, so `email` is usually `null`.
 * @see https://developer.x.com/en/docs/authentication/oauth-2-0/authorization-code
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { TwitterProfile } from "./profiles/twitter.js"

export type { TwitterProfile } from "./profiles/twitter.js"

export default function Twitter(options: OAuthUserConfig<TwitterProfile> = {}): OAuthConfig<TwitterProfile> {
  const preset: OAuthConfig<TwitterProfile> = {
    id: "twitter",
    name: "Twitter",
    type: "oauth",
    authorization: "https://x.com/i/oauth2/authorize?scope=users.read tweet.read offline.access",
    token: "https://api.x.com/2/oauth2/token",
    userinfo: "https://api.x.com/2/users/me?user.fields=profile_image_url",
    profile({ data }) {
      return {
        id: String(data.id),
        name: data.name ?? null,
        email: data.email ?? null,
        image: data.profile_image_url ?? null,
      }
    },
    style: { bg: "#000", text: "#fff", brandColor: "#000" },
  }
  return presetWith(preset, options)
}
