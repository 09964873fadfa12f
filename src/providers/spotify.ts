/**
 * Sign in with Spotify (OAuth 2).
 *
 * @example
 * ```ts
 * import Spotify from "authchart/providers/spotify"
 * Spotify() // reads AUTH_SPOTIFY_ID and AUTH_SPOTIFY_SECRET
 * ```
 * Asks for `user-read-email`; add scopes with `authorization: { params: { scope: "…" } }`.
 * @see https://developer.spotify.com/documentation/web-api/tutorials/code-pkce-flow
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { SpotifyProfile } from "./profiles/spotify.js"

export type { SpotifyImage, SpotifyProfile } from "./profiles/spotify.js"

export default function Spotify(options: OAuthUserConfig<SpotifyProfile> = {}): OAuthConfig<SpotifyProfile> {
  const preset: OAuthConfig<SpotifyProfile> = {
    id: "spotify",
    name: "Spotify",
    type: "oauth",
    authorization: "https://accounts.spotify.com/authorize?scope=user-read-email",
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.display_name ?? null,
        email: profile.email ?? null,
        image: profile.images?.[0]?.url ?? null,
      }
    },
    style: { bg: "#000", text: "#1db954", brandColor: "#1db954" },
  }
  return presetWith(preset, options)
}
