/**
 * Sign in with ZITADEL (OpenID Connect).
 *
 * @example
 * ```ts
 * import ZITADEL from "authchart/providers/zitadel"
 * ZITADEL({ issuer: "https://acme-abc123.zitadel.cloud" }) // or set AUTH_ZITADEL_ISSUER, with AUTH_ZITADEL_ID and _SECRET
 * ```
 * @see https://zitadel.com/docs/guides/integrate/login/oidc
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { ZitadelProfile } from "./profiles/zitadel.js"

export type { ZitadelProfile } from "./profiles/zitadel.js"

export default function ZITADEL(options: OAuthUserConfig<ZitadelProfile> = {}): OIDCConfig<ZitadelProfile> {
  const preset: OIDCConfig<ZitadelProfile> = {
    id: "zitadel",
    name: "ZITADEL",
    type: "oidc",
  }
  return presetWith(preset, options)
}
