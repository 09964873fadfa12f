/**
 * Sign in with Logto (OpenID Connect).
 *
 * @example
 * ```ts
 * import Logto from "authchart/providers/logto"
 * Logto({ issuer: "https://acme.logto.app/oidc" }) // or set AUTH_LOGTO_ISSUER, with AUTH_LOGTO_ID and _SECRET
 * ```
 * Asks for `offline_access openid email profile`.
 * @see https://docs.logto.io/quick-starts/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { LogtoProfile } from "./profiles/logto.js"

export type { LogtoProfile } from "./profiles/logto.js"

export default function Logto(options: OAuthUserConfig<LogtoProfile> = {}): OIDCConfig<LogtoProfile> {
  const preset: OIDCConfig<LogtoProfile> = {
    id: "logto",
    name: "Logto",
    type: "oidc",
    authorization: { params: { scope: "offline_access openid email profile" } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.username, email: profile.email, image: profile.picture }
    },
  }
  return presetWith(preset, options)
}
