/**
 * Sign in with Strava (OAuth 2).
 *
 * @example
 * ```ts
 * import Strava from "authchart/providers/strava"
 * Strava() // reads AUTH_STRAVA_ID and AUTH_STRAVA_SECRET
 * ```
 * Asks for `read`; Strava shares no email address. The id is the athlete's number, as a string.
 * @see https://developers.strava.com/docs/authentication/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { StravaProfile } from "./profiles/strava.js"

export type { StravaProfile } from "./profiles/strava.js"

export default function Strava(options: OAuthUserConfig<StravaProfile> = {}): OAuthConfig<StravaProfile> {
  const preset: OAuthConfig<StravaProfile> = {
    id: "strava",
    name: "Strava",
    type: "oauth",
    authorization: {
      url: "https://www.strava.com/api/v3/oauth/authorize",
      params: { scope: "read", approval_prompt: "auto", response_type: "code" },
    },
    token: { url: "https://www.strava.com/api/v3/oauth/token" },
    userinfo: "https://www.strava.com/api/v3/athlete",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return { id: String(profile.id), name: `${profile.firstname} ${profile.lastname}`, email: null, image: profile.profile }
    },
  }
  return presetWith(preset, options)
}
