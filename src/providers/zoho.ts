/**
 * Sign in with Zoho (OAuth 2).
 *
 * @example
 * ```ts
 * import Zoho from "authchart/providers/zoho"
 * Zoho() // reads AUTH_ZOHO_ID and AUTH_ZOHO_SECRET
 * ```
 * Asks for `AaaServer.profile.Read`.
 * @see https://www.zoho.com/accounts/protocol/oauth.html
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The user, from `GET /oauth/user/info`. */
export interface ZohoProfile {
  ZUID: number | string
  First_Name: string
  Last_Name: string
  Email: string
  [field: string]: unknown
}

export default function Zoho(options: OAuthUserConfig<ZohoProfile> = {}): OAuthConfig<ZohoProfile> {
  const preset: OAuthConfig<ZohoProfile> = {
    id: "zoho",
    name: "Zoho",
    type: "oauth",
    authorization: "https://accounts.zoho.com/oauth/v2/auth?scope=AaaServer.profile.Read",
    token: "https://accounts.zoho.com/oauth/v2/token",
    userinfo: "https://accounts.zoho.com/oauth/user/info",
    profile(profile) {
      return { id: String(profile.ZUID), name: `${profile.First_Name} ${profile.Last_Name}`, email: profile.Email, image: null }
    },
  }
  return presetWith(preset, options)
}
