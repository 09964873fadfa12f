/**
 * Sign in with Webex (OAuth 2).
 *
 * @example
 * ```ts
 * import Webex from "authchart/providers/webex"
 * Webex() // reads AUTH_WEBEX_ID and AUTH_WEBEX_SECRET
 * ```
 * Asks for `spark:kms spark:people_read`; the email is the user's first address. `apiBaseUrl`
 * (default `https://webexapis.com/v1`) points it at another Webex API base.
 * @see https://developer.webex.com/docs/integrations
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { WebexProfile } from "./profiles/webex.js"

export type { WebexProfile } from "./profiles/webex.js"

/** Options of {@link Webex}: the usual provider options, plus the API base URL. */
export type WebexOptions<P extends WebexProfile = WebexProfile> = OAuthUserConfig<P> & { apiBaseUrl?: string }

export default function Webex<P extends WebexProfile = WebexProfile>(options: WebexOptions<P> = {}): OAuthConfig<P> {
  const apiBaseUrl = options.apiBaseUrl ?? "https://webexapis.com/v1"
  const preset: OAuthConfig<P> = {
    id: "webex",
    name: "Webex",
    type: "oauth",
    authorization: { url: `${apiBaseUrl}/authorize`, params: { scope: "spark:kms spark:people_read" } },
    token: `${apiBaseUrl}/access_token`,
    userinfo: `${apiBaseUrl}/people/me`,
    profile(profile) {
      return { id: profile.id, email: profile.emails[0], name: profile.displayName, image: profile.avatar }
    },
  }
  return presetWith(preset, options)
}
