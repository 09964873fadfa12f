/**
 * Sign in with United Effects (OpenID Connect).
 *
 * @example
 * ```ts
 * import UnitedEffects from "authchart/providers/united-effects"
 * UnitedEffects({ issuer: "https://auth.unitedeffects.com/acme" })
 * ```
 * Asks for `openid email profile`, with the issuer as the `resource` parameter.
 * @see https://docs.unitedeffects.com/integrations/oauth-and-oidc
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { UnitedEffectsProfile } from "./profiles/united-effects.js"

export type { UnitedEffectsProfile } from "./profiles/united-effects.js"

export default function UnitedEffects(options: OAuthUserConfig<UnitedEffectsProfile> = {}): OIDCConfig<UnitedEffectsProfile> {
  const preset: OIDCConfig<UnitedEffectsProfile> = {
    id: "united-effects",
    name: "United Effects",
    type: "oidc",
    authorization: { params: { scope: "openid email profile", resource: options.issuer } },
  }
  return presetWith(preset, options)
}
