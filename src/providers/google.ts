/**
 * Sign in with Google (OpenID Connect).
 *
 * @example
 * ```ts
 * import Google from "authchart/providers/google"
 * Google() // reads AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET
 * Google({ authorization: { params: { prompt: "consent", access_type: "offline" } } }) // refresh tokens
 * ```
 * Endpoints come from `https://accounts.google.com/.well-known/openid-configuration`.
 * @see https://developers.google.com/identity/openid-connect/openid-connect
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { GoogleProfile } from "./profiles/google.js"

export type { GoogleProfile } from "./profiles/google.js"

export default function Google(options: OAuthUserConfig<GoogleProfile> = {}): OIDCConfig<GoogleProfile> {
  const preset: OIDCConfig<GoogleProfile> = {
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    profile: defaultProfile,
    style: { bg: "#fff", text: "#000", brandColor: "#1a73e8" },
  }
  return presetWith(preset, options)
}
