/**
 * Sign in with Apple (OpenID Connect).
 *
 * @example
 * ```ts
 * import Apple from "authchart/providers/apple"
 * Apple({ clientId: "com.example.web", clientSecret: process.env.AUTH_APPLE_SECRET })
 * ```
 * Apple posts the callback (`response_mode=form_post`) and expects the client secret in the token
 * request body; the secret is a JWT you sign with your Apple key. Apple sends the user's name only on
 * the first sign-in, in the `user` form field, which the callback passes as `profile.user`.
 * @see https://developer.apple.com/documentation/sign_in_with_apple/sign_in_with_apple_rest_api
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { AppleProfile } from "./profiles/apple.js"

export type { AppleProfile, AppleNonConformUser } from "./profiles/apple.js"

export default function Apple(options: OAuthUserConfig<AppleProfile> = {}): OIDCConfig<AppleProfile> {
  const preset: OIDCConfig<AppleProfile> = {
    id: "apple",
    name: "Apple",
    type: "oidc",
    issuer: "https://appleid.apple.com",
    authorization: { params: { scope: "name email", response_mode: "form_post" } },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const { firstName, lastName } = profile.user?.name ?? {}
      const name = [firstName, lastName].filter(Boolean).join(" ")
      return {
        id: String(profile.sub),
        name: name || null,
        email: profile.email ?? profile.user?.email ?? null,
        image: null,
      }
    },
    style: { bg: "#000", text: "#fff", brandColor: "#000" },
  }
  return presetWith(preset, options)
}
