/**
 * Sign in with Descope (OpenID Connect).
 *
 * @example
 * ```ts
 * import Descope from "authchart/providers/descope"
 * Descope({ clientId: "P2abc…" }) // the issuer defaults to https://api.descope.com/<clientId>
 * ```
 * The client id is the Descope project id; sends PKCE and `state`, no nonce.
 * @see https://docs.descope.com/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { DescopeProfile } from "./profiles/descope.js"

export type { DescopeProfile } from "./profiles/descope.js"

export default function Descope(options: OAuthUserConfig<DescopeProfile> = {}): OIDCConfig<DescopeProfile> {
  const issuer = options.issuer ?? (options.clientId ? `https://api.descope.com/${options.clientId}` : undefined)
  const preset: OIDCConfig<DescopeProfile> = {
    id: "descope",
    name: "Descope",
    type: "oidc",
    checks: ["pkce", "state"],
    style: { bg: "#1C1C23", text: "#ffffff" },
  }
  return presetWith(preset, { ...options, issuer })
}
