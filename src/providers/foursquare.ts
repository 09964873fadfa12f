/**
 * Sign in with Foursquare (OAuth 2).
 *
 * @example
 * ```ts
 * import Foursquare from "authchart/providers/foursquare"
 * Foursquare({ apiVersion: "20230131" }) // reads AUTH_FOURSQUARE_ID and AUTH_FOURSQUARE_SECRET
 * ```
 * The profile is `GET /v2/users/self`, versioned by `apiVersion` (default `20230131`), with the token in
 * the `oauth_token` query parameter as Foursquare wants it.
 * @see https://docs.foursquare.com/developer/reference/personalization-apis-authentication
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import { requestJson } from "./userinfo-request.js"

/** The answer of `GET /v2/users/self`: the user in `response.user`. */
export interface FoursquareProfile {
  response: {
    user: {
      id: string
      firstName: string
      lastName: string
      contact: { email?: string; [field: string]: unknown }
      photo?: { prefix: string; suffix: string }
      [field: string]: unknown
    }
  }
  [field: string]: unknown
}

/** Options of {@link Foursquare}: the usual provider options, plus the API version date. */
export type FoursquareOptions = OAuthUserConfig<FoursquareProfile> & { apiVersion?: string }

export default function Foursquare(options: FoursquareOptions = {}): OAuthConfig<FoursquareProfile> {
  const { apiVersion = "20230131" } = options
  const preset: OAuthConfig<FoursquareProfile> = {
    id: "foursquare",
    name: "Foursquare",
    type: "oauth",
    authorization: "https://foursquare.com/oauth2/authenticate",
    token: "https://foursquare.com/oauth2/access_token",
    userinfo: {
      url: `https://api.foursquare.com/v2/users/self?v=${apiVersion}`,
      request({ tokens, provider }: UserinfoRequestContext) {
        const url = new URL(provider.userinfo?.url ?? `https://api.foursquare.com/v2/users/self?v=${apiVersion}`)
        url.searchParams.append("oauth_token", tokens.access_token ?? "")
        return requestJson(url.href, { timeout: options.timeout })
      },
    },
    profile({ response: { user } }) {
      return {
        id: user.id,
        name: `${user.firstName} ${user.lastName}`,
        email: user.contact.email,
        image: user.photo ? `${user.photo.prefix}original${user.photo.suffix}` : null,
      }
    },
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith(preset, options)
}
