/**
 * Sign in with Ping Identity (OpenID Connect).
 *
 * @example
 * ```ts
 * import PingId from "authchart/providers/ping-id"
 * PingId({ issuer: "https://auth.pingone.eu/00000000-0000-0000-0000-000000000000/as" }) // or set AUTH_PING_ID_ISSUER, with AUTH_PING_ID_ID and _SECRET
 * ```
 * @see https://docs.pingidentity.com/r/en-us/pingone/p1_c_openid_connect
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { PingProfile } from "./profiles/ping-id.js"

export type { PingProfile } from "./profiles/ping-id.js"

export default function PingId(options: OAuthUserConfig<PingProfile> = {}): OIDCConfig<PingProfile> {
  const preset: OIDCConfig<PingProfile> = {
    id: "ping-id",
    name: "Ping Identity",
    type: "oidc",
  }
  return presetWith(preset, options)
}
