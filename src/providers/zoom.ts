/**
 * Sign in with Zoom (OAuth 2).
 *
 * @example
 * ```ts
 * import Zoom from "authchart/providers/zoom"
 * Zoom() // reads AUTH_ZOOM_ID and AUTH_ZOOM_SECRET
 * ```
 * The scopes are the ones set on the Zoom app (the authorization URL sends an empty `scope`).
 * @see https://developers.zoom.us/docs/integrations/oauth/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { ZoomProfile } from "./profiles/zoom.js"

export type { ZoomProfile } from "./profiles/zoom.js"

export default function Zoom(options: OAuthUserConfig<ZoomProfile> = {}): OAuthConfig<ZoomProfile> {
  return presetWith<ZoomProfile>(
    {
      id: "zoom",
      name: "Zoom",
      type: "oauth",
      authorization: "https://zoom.us/oauth/authorize?scope",
      token: "https://zoom.us/oauth/token",
      userinfo: "https://api.zoom.us/v2/users/me",
      profile: (profile) => ({
        id: String(profile.id),
        name: `${profile.first_name} ${profile.last_name}`,
        email: profile.email,
        image: profile.pic_url,
      }),
      style: { bg: "#0b5cff", text: "#fff", brandColor: "#0b5cff" },
    },
    options,
  )
}
