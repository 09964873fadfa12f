/**
 * Sign in with Passage by 1Password (OpenID Connect).
 *
 * @example
 * ```ts
 * import Passage from "authchart/providers/passage"
 * Passage({ issuer: "https://auth.passage.id/v1/apps/AbC123" }) // or set AUTH_PASSAGE_ISSUER, with AUTH_PASSAGE_ID and _SECRET
 * ```
 * Authenticates at the token endpoint with HTTP Basic (`client_secret_basic`).
 * @see https://docs.passage.id/hosted-login/oidc-client-configuration
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { PassageProfile } from "./profiles/passage.js"

export type { PassageProfile } from "./profiles/passage.js"

export default function Passage(options: OAuthUserConfig<PassageProfile> = {}): OIDCConfig<PassageProfile> {
  const preset: OIDCConfig<PassageProfile> = {
    id: "passage",
    name: "Passage",
    type: "oidc",
    client: { token_endpoint_auth_method: "client_secret_basic" },
    style: { brandColor: "#3d53f6" },
  }
  return presetWith(preset, options)
}
