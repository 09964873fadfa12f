/**
 * Sign in with Patreon (OAuth 2).
 *
 * @example
 * ```ts
 * import Patreon from "authchart/providers/patreon"
 * Patreon() // reads AUTH_PATREON_ID and AUTH_PATREON_SECRET
 * ```
 * Asks for `identity identity[email]`.
 * @see https://docs.patreon.com/#oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { PatreonProfile } from "./profiles/patreon.js"

export type { PatreonProfile } from "./profiles/patreon.js"

/** Patreon's answer: the user in `data` (Auth.js' `PatreonProfile` describes OpenID-style claims). */
type PatreonAnswer = PatreonProfile & {
  data: { id: string; attributes: { full_name: string; email: string; image_url: string; [field: string]: unknown } }
}

export default function Patreon(options: OAuthUserConfig<PatreonProfile> = {}): OAuthConfig<PatreonProfile> {
  const preset: OAuthConfig<PatreonAnswer> = {
    id: "patreon",
    name: "Patreon",
    type: "oauth",
    authorization: { url: "https://www.patreon.com/oauth2/authorize", params: { scope: "identity identity[email]" } },
    token: "https://www.patreon.com/api/oauth2/token",
    userinfo: "https://www.patreon.com/api/oauth2/api/current_user",
    profile(profile) {
      const { id, attributes } = profile.data
      return { id, name: attributes.full_name, email: attributes.email, image: attributes.image_url }
    },
    style: { bg: "#e85b46", text: "#fff" },
  }
  return presetWith(preset, options)
}
