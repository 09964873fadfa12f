/**
 * Sign in with Coinbase (OAuth 2).
 *
 * @example
 * ```ts
 * import Coinbase from "authchart/providers/coinbase"
 * Coinbase() // reads AUTH_COINBASE_ID and AUTH_COINBASE_SECRET
 * ```
 * Asks for `wallet:user:email wallet:user:read`.
 * @see https://docs.cdp.coinbase.com/coinbase-app/docs/coinbase-app-integration
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The signed-in user, from `GET /v2/user` (Coinbase wraps it in `data`). */
export interface CoinbaseProfile {
  data: { id: string; name: string; email: string; avatar_url: string; [field: string]: unknown }
  [field: string]: unknown
}

export default function Coinbase(options: OAuthUserConfig<CoinbaseProfile> = {}): OAuthConfig<CoinbaseProfile> {
  const preset: OAuthConfig<CoinbaseProfile> = {
    id: "coinbase",
    name: "Coinbase",
    type: "oauth",
    authorization: "https://login.coinbase.com/oauth2/auth?scope=wallet:user:email+wallet:user:read",
    token: "https://login.coinbase.com/oauth2/token",
    userinfo: "https://api.coinbase.com/v2/user",
    profile(profile) {
      return { id: profile.data.id, name: profile.data.name, email: profile.data.email, image: profile.data.avatar_url }
    },
    style: { brandColor: "#0052ff" },
  }
  return presetWith(preset, options)
}
