/**
 * Sign in with osu! (OAuth 2).
 *
 * @example
 * ```ts
 * import Osu from "authchart/providers/osu"
 * Osu() // reads AUTH_OSU_ID and AUTH_OSU_SECRET
 * ```
 * Asks for `identify`; osu! shares no email address.
 * @see https://osu.ppy.sh/docs/index.html#authentication
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { OsuProfile } from "./profiles/osu.js"

export type { OsuUserCompact, OsuProfile } from "./profiles/osu.js"

export default function Osu(options: OAuthUserConfig<OsuProfile> = {}): OAuthConfig<OsuProfile> {
  const preset: OAuthConfig<OsuProfile> = {
    id: "osu",
    name: "osu!",
    type: "oauth",
    token: "https://osu.ppy.sh/oauth/token",
    authorization: "https://osu.ppy.sh/oauth/authorize?scope=identify",
    userinfo: "https://osu.ppy.sh/api/v2/me",
    profile(profile) {
      return { id: profile.id.toString(), email: null, name: profile.username, image: profile.avatar_url }
    },
  }
  return presetWith(preset, options)
}
