/**
 * Sign in with Asgardeo (OpenID Connect).
 *
 * @example
 * ```ts
 * import Asgardeo from "authchart/providers/asgardeo"
 * Asgardeo({ issuer: "https://api.asgardeo.io/t/acme" })
 * ```
 * Discovery is read from `<issuer>/oauth2/token/.well-known/openid-configuration`.
 * @see https://wso2.com/asgardeo/docs/guides/authentication/oidc/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { AsgardeoProfile } from "./profiles/asgardeo.js"

export type { AsgardeoProfile } from "./profiles/asgardeo.js"

export default function Asgardeo(options: OAuthUserConfig<AsgardeoProfile> = {}): OIDCConfig<AsgardeoProfile> {
  const preset: OIDCConfig<AsgardeoProfile> = {
    id: "asgardeo",
    name: "Asgardeo",
    type: "oidc",
    ...(options.issuer ? { wellKnown: `${options.issuer}/oauth2/token/.well-known/openid-configuration` } : {}),
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith(preset, options)
}
