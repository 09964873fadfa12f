/**
 * Sign in with Roblox (OpenID Connect).
 *
 * @example
 * ```ts
 * import Roblox from "authchart/providers/roblox"
 * Roblox() // reads AUTH_ROBLOX_ID and AUTH_ROBLOX_SECRET
 * ```
 * Asks for `openid profile` (Roblox has no email scope); sends PKCE and `state`, no nonce.
 * @see https://create.roblox.com/docs/cloud/open-cloud/oauth2-overview
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { RobloxProfile } from "./profiles/roblox.js"

export type { RobloxProfile } from "./profiles/roblox.js"

export default function Roblox(options: OAuthUserConfig<RobloxProfile> = {}): OIDCConfig<RobloxProfile> {
  const preset: OIDCConfig<RobloxProfile> = {
    id: "roblox",
    name: "Roblox",
    type: "oidc",
    authorization: { params: { scope: "openid profile" } },
    issuer: "https://apis.roblox.com/oauth/",
    checks: ["pkce", "state"],
    style: { bg: "#5865F2", text: "#fff" },
  }
  return presetWith(preset, options)
}
