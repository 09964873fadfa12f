/**
 * Sign in with Facebook (OAuth 2).
 *
 * @example
 * ```ts
 * import Facebook from "authchart/providers/facebook"
 * Facebook() // reads AUTH_FACEBOOK_ID and AUTH_FACEBOOK_SECRET
 * ```
 * Asks for `email` and reads `id,name,email,picture` from the Graph API.
 * @see https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { FacebookProfile } from "./profiles/facebook.js"

export type { FacebookProfile } from "./profiles/facebook.js"

export default function Facebook(options: OAuthUserConfig<FacebookProfile> = {}): OAuthConfig<FacebookProfile> {
  const preset: OAuthConfig<FacebookProfile> = {
    id: "facebook",
    name: "Facebook",
    type: "oauth",
    authorization: { url: "https://www.facebook.com/v19.0/dialog/oauth", params: { scope: "email" } },
    token: "https://graph.facebook.com/oauth/access_token",
    userinfo: { url: "https://graph.facebook.com/me?fields=id,name,email,picture" },
    profile(profile: FacebookProfile & { name?: string; email?: string }) {
      return {
        id: String(profile.id),
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture?.data?.url ?? null,
      }
    },
    style: { bg: "#006aff", text: "#fff", brandColor: "#0866ff" },
  }
  return presetWith(preset, options)
}
