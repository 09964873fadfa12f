/**
 * Sign in with EVE Online (OAuth 2).
 *
 * @example
 * ```ts
 * import EVEOnline from "authchart/providers/eveonline"
 * EVEOnline() // reads AUTH_EVEONLINE_ID and AUTH_EVEONLINE_SECRET
 * ```
 * Signs in a character: its name and portrait, no email. Sends `state` only (no PKCE).
 * @see https://docs.esi.evetech.net/docs/sso/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { EVEOnlineProfile } from "./profiles/eveonline.js"

export type { EVEOnlineProfile } from "./profiles/eveonline.js"

export default function EVEOnline(options: OAuthUserConfig<EVEOnlineProfile> = {}): OAuthConfig<EVEOnlineProfile> {
  const preset: OAuthConfig<EVEOnlineProfile> = {
    id: "eveonline",
    name: "EVE Online",
    type: "oauth",
    authorization: "https://login.eveonline.com/v2/oauth/authorize?scope=publicData",
    token: "https://login.eveonline.com/v2/oauth/token",
    userinfo: "https://login.eveonline.com/oauth/verify",
    checks: ["state"],
    profile(profile) {
      return {
        id: String(profile.CharacterID),
        name: profile.CharacterName,
        email: null,
        image: `https://image.eveonline.com/Character/${profile.CharacterID}_128.jpg`,
      }
    },
  }
  return presetWith(preset, options)
}
