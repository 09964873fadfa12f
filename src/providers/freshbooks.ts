/**
 * Sign in with Freshbooks (OAuth 2).
 *
 * @example
 * ```ts
 * import Freshbooks from "authchart/providers/freshbooks"
 * Freshbooks() // reads AUTH_FRESHBOOKS_ID and AUTH_FRESHBOOKS_SECRET
 * ```
 * @see https://www.freshbooks.com/api/authenticating-with-oauth-2-0-on-the-new-freshbooks-api
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The identity, from `GET /auth/api/v1/users/me` (wrapped in `response`). */
export interface FreshbooksProfile {
  response: { id: number; first_name: string; last_name: string; email: string; [field: string]: unknown }
  [field: string]: unknown
}

export default function Freshbooks(options: OAuthUserConfig<FreshbooksProfile> = {}): OAuthConfig<FreshbooksProfile> {
  const preset: OAuthConfig<FreshbooksProfile> = {
    id: "freshbooks",
    name: "Freshbooks",
    type: "oauth",
    authorization: "https://auth.freshbooks.com/service/auth/oauth/authorize",
    token: "https://api.freshbooks.com/auth/oauth/token",
    userinfo: "https://api.freshbooks.com/auth/api/v1/users/me",
    async profile(profile) {
      const user = profile.response
      return { id: String(user.id), name: `${user.first_name} ${user.last_name}`, email: user.email, image: null }
    },
    style: { bg: "#0075dd", text: "#fff" },
  }
  return presetWith(preset, options)
}
