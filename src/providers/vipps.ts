/**
 * Sign in with Vipps MobilePay (OpenID Connect).
 *
 * @example
 * ```ts
 * import Vipps from "authchart/providers/vipps"
 * Vipps() // reads AUTH_VIPPS_ID and AUTH_VIPPS_SECRET
 * ```
 * Asks for `openid name email`; the profile comes from the userinfo endpoint. For the test
 * environment pass `issuer: "https://apitest.vipps.no/access-management-1.0/access/"`.
 * @see https://developer.vippsmobilepay.com/docs/APIs/login-api/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { VippsProfile } from "./profiles/vipps.js"

export type { VippsProfile } from "./profiles/vipps.js"

export default function Vipps(options: OAuthUserConfig<VippsProfile> = {}): OIDCConfig<VippsProfile> {
  const preset: OIDCConfig<VippsProfile> = {
    id: "vipps",
    name: "Vipps",
    type: "oidc",
    issuer: "https://api.vipps.no/access-management-1.0/access/",
    authorization: { params: { scope: "openid name email" } },
    idToken: false,
    checks: ["pkce", "state", "nonce"],
    style: { brandColor: "#f05c18" },
  }
  return presetWith(preset, options)
}
