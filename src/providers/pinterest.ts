/**
 * Sign in with Pinterest (OAuth 2).
 *
 * @example
 * ```ts
 * import PinterestProvider from "authchart/providers/pinterest"
 * PinterestProvider() // reads AUTH_PINTEREST_ID and AUTH_PINTEREST_SECRET
 * ```
 * Asks for `user_accounts:read`. The id and name are the username; Pinterest shares no email address.
 * @see https://developers.pinterest.com/docs/getting-started/authentication/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { PinterestProfile } from "./profiles/pinterest.js"

export type { PinterestProfile } from "./profiles/pinterest.js"

export default function PinterestProvider(options: OAuthUserConfig<PinterestProfile> = {}): OAuthConfig<PinterestProfile> {
  const preset: OAuthConfig<PinterestProfile> = {
    id: "pinterest",
    name: "Pinterest",
    type: "oauth",
    authorization: { url: "https://www.pinterest.com/oauth", params: { scope: "user_accounts:read" } },
    token: "https://api.pinterest.com/v5/oauth/token",
    userinfo: "https://api.pinterest.com/v5/user_account",
    profile({ username, profile_image }) {
      return { id: username, name: username, image: profile_image, email: null }
    },
    style: { brandColor: "#bd081c" },
  }
  return presetWith(preset, options)
}
