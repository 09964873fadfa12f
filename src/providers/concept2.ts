/**
 * Sign in with Concept2 (OAuth 2).
 *
 * @example
 * ```ts
 * import Concept2 from "authchart/providers/concept2"
 * Concept2() // reads AUTH_CONCEPT2_ID and AUTH_CONCEPT2_SECRET
 * ```
 * Asks for `user:read,results:write`.
 * @see https://log.concept2.com/developers/documentation/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { Concept2Profile } from "./profiles/concept2.js"

export type { Concept2Profile } from "./profiles/concept2.js"

/** Concept2's answer: the user in `data` (Auth.js' `Concept2Profile` describes the user alone). */
type Concept2Answer = Concept2Profile & { data: Concept2Profile }

export default function Concept2(options: OAuthUserConfig<Concept2Profile> = {}): OAuthConfig<Concept2Profile> {
  const preset: OAuthConfig<Concept2Answer> = {
    id: "concept2",
    name: "Concept2",
    type: "oauth",
    authorization: { url: "https://log.concept2.com/oauth/authorize", params: { scope: "user:read,results:write" } },
    token: "https://log.concept2.com/oauth/access_token",
    userinfo: "https://log.concept2.com/api/users/me",
    profile(profile) {
      return { id: String(profile.data.id), name: profile.data.username, email: profile.data.email, image: profile.data.profile_image }
    },
  }
  return presetWith(preset, options)
}
