/**
 * Sign in with Bungie (OAuth 2).
 *
 * @example
 * ```ts
 * import Bungie from "authchart/providers/bungie"
 * Bungie() // reads AUTH_BUNGIE_ID and AUTH_BUNGIE_SECRET
 * ```
 * Bungie needs an API key on every request; as in Auth.js, pass your own `userinfo` (with
 * `request`) that sends it.
 * @see https://github.com/Bungie-net/api/wiki/OAuth-Documentation
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The answer of `GET /User/GetBungieAccount/…` (the user in `Response.bungieNetUser`). */
export interface BungieProfile {
  Response: {
    bungieNetUser: { membershipId: string; displayName: string; profilePicturePath: string; [field: string]: unknown }
    [field: string]: unknown
  }
  [field: string]: unknown
}

export default function Bungie(options: OAuthUserConfig<BungieProfile> = {}): OAuthConfig<BungieProfile> {
  const preset: OAuthConfig<BungieProfile> = {
    id: "bungie",
    name: "Bungie",
    type: "oauth",
    authorization: "https://www.bungie.net/en/OAuth/Authorize?reauth=true",
    token: "https://www.bungie.net/platform/app/oauth/token/",
    userinfo: "https://www.bungie.net/platform/User/GetBungieAccount/{membershipId}/254/",
    profile(profile) {
      const user = profile.Response.bungieNetUser
      const path = user.profilePicturePath.startsWith("/") ? user.profilePicturePath : `/${user.profilePicturePath}`
      return { id: user.membershipId, name: user.displayName, email: null, image: `https://www.bungie.net${path}` }
    },
  }
  return presetWith(preset, options)
}
