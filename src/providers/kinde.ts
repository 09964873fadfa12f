/**
 * Sign in with Kinde (OpenID Connect).
 *
 * @example
 * ```ts
 * import Kinde from "authchart/providers/kinde"
 * Kinde({ issuer: "https://acme.kinde.com" }) // or set AUTH_KINDE_ISSUER, with AUTH_KINDE_ID and _SECRET
 * ```
 * Sends `state` and PKCE, no nonce.
 * @see https://kinde.com/docs/developer-tools/using-kinde-without-an-sdk/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { KindeProfile } from "./profiles/kinde.js"

export type { KindeProfile } from "./profiles/kinde.js"

export default function Kinde(options: OAuthUserConfig<KindeProfile> = {}): OIDCConfig<KindeProfile> {
  const preset: OIDCConfig<KindeProfile> = {
    id: "kinde",
    name: "Kinde",
    type: "oidc",
    checks: ["state", "pkce"],
    style: { text: "#0F0F0F", bg: "#fff" },
  }
  return presetWith(preset, options)
}
