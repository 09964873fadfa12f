/**
 * Sign in with Netlify (OAuth 2).
 *
 * @example
 * ```ts
 * import Netlify from "authchart/providers/netlify"
 * Netlify() // reads AUTH_NETLIFY_ID and AUTH_NETLIFY_SECRET
 * ```
 * @see https://docs.netlify.com/api/get-started/#authentication
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The user, from `GET /api/v1/user`. */
export interface NetlifyProfile {
  id: string
  full_name: string
  email: string
  avatar_url: string
  [field: string]: unknown
}

export default function Netlify(options: OAuthUserConfig<NetlifyProfile> = {}): OAuthConfig<NetlifyProfile> {
  const preset: OAuthConfig<NetlifyProfile> = {
    id: "netlify",
    name: "Netlify",
    type: "oauth",
    authorization: "https://app.netlify.com/authorize?scope",
    token: "https://api.netlify.com/oauth/token",
    userinfo: "https://api.netlify.com/api/v1/user",
    profile(profile) {
      return { id: profile.id, name: profile.full_name, email: profile.email, image: profile.avatar_url }
    },
    style: { brandColor: "#32e6e2" },
  }
  return presetWith(preset, options)
}
