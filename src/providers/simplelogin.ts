/**
 * Sign in with SimpleLogin (OpenID Connect).
 *
 * @example
 * ```ts
 * import SimpleLogin from "authchart/providers/simplelogin"
 * SimpleLogin() // reads AUTH_SIMPLELOGIN_ID and AUTH_SIMPLELOGIN_SECRET
 * ```
 * The email is the address (or alias) the user chose to share.
 * @see https://simplelogin.io/docs/siwsl/intro/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { SimpleLoginProfile } from "./profiles/simplelogin.js"

export type { SimpleLoginProfile } from "./profiles/simplelogin.js"

export default function SimpleLogin(options: OAuthUserConfig<SimpleLoginProfile> = {}): OIDCConfig<SimpleLoginProfile> {
  const preset: OIDCConfig<SimpleLoginProfile> = {
    id: "simplelogin",
    name: "SimpleLogin",
    type: "oidc",
    issuer: "https://app.simplelogin.io",
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email, image: profile.avatar_url }
    },
    style: { brandColor: "#e3156a" },
  }
  return presetWith(preset, options)
}
