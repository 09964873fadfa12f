/**
 * Sign in with Trakt (OAuth 2).
 *
 * @example
 * ```ts
 * import Trakt from "authchart/providers/trakt"
 * Trakt() // reads AUTH_TRAKT_ID and AUTH_TRAKT_SECRET
 * ```
 * The profile is `GET /users/me?extended=full`, sent with Trakt's API version and the client id as its
 * API key. Trakt shares no email address, and its avatar may not be hot-linked.
 * @see https://trakt.docs.apiary.io/#reference/authentication-oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { TraktUser } from "./profiles/trakt.js"
import { requestJson } from "./userinfo-request.js"

export type { TraktUser } from "./profiles/trakt.js"

export default function Trakt<P extends TraktUser = TraktUser>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  const preset: OAuthConfig<P> = {
    id: "trakt",
    name: "Trakt",
    type: "oauth",
    authorization: "https://trakt.tv/oauth/authorize?scope=",
    token: "https://api.trakt.tv/oauth/token",
    userinfo: {
      url: "https://api.trakt.tv/users/me?extended=full",
      request({ tokens, provider }: UserinfoRequestContext) {
        return requestJson(provider.userinfo?.url ?? "https://api.trakt.tv/users/me?extended=full", {
          accessToken: tokens.access_token,
          headers: { "trakt-api-version": "2", "trakt-api-key": provider.clientId ?? "" },
          timeout: options.timeout,
        })
      },
    },
    profile(profile) {
      return { id: profile.ids.slug, name: profile.name, email: null, image: profile.images.avatar.full }
    },
    style: { bg: "#ED2224", text: "#fff" },
  }
  return presetWith(preset, options)
}
