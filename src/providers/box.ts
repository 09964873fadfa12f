/**
 * Sign in with Box (OAuth 2).
 *
 * @example
 * ```ts
 * import Box from "authchart/providers/box"
 * Box() // reads AUTH_BOX_ID and AUTH_BOX_SECRET
 * ```
 * The scopes are the ones set on the Box app. The email is the user's `login`.
 * @see https://developer.box.com/guides/authentication/oauth2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The current user, from `GET /2.0/users/me`. */
export interface BoxProfile {
  type: "user"
  id: string
  name: string
  /** The user's email address. */
  login: string
  created_at?: string
  language?: string
  timezone?: string
  space_amount?: number
  status?: string
  avatar_url?: string
  [field: string]: unknown
}

export default function Box(options: OAuthUserConfig<BoxProfile> = {}): OAuthConfig<BoxProfile> {
  return presetWith<BoxProfile>(
    {
      id: "box",
      name: "Box",
      type: "oauth",
      authorization: "https://account.box.com/api/oauth2/authorize",
      token: "https://api.box.com/oauth2/token",
      userinfo: "https://api.box.com/2.0/users/me",
      profile: (profile) => ({
        id: String(profile.id),
        name: profile.name ?? null,
        email: profile.login ?? null,
        image: profile.avatar_url ?? null,
      }),
      style: { bg: "#0061d5", text: "#fff", brandColor: "#0061d5" },
    },
    options,
  )
}
