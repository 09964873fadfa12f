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

/** The ID token claims Google sends. */
export interface GoogleProfile {
  iss: string
  aud: string
  azp?: string
  sub: string
  email: string
  email_verified: boolean
  name?: string
  given_name?: string
  family_name?: string
  picture?: string
  locale?: string
  hd?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

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
