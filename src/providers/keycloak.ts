/**
 * Sign in with Keycloak (OpenID Connect).
 *
 * @example
 * ```ts
 * import Keycloak from "authchart/providers/keycloak"
 * Keycloak({ issuer: "https://sso.acme.example/realms/acme" }) // or set AUTH_KEYCLOAK_ISSUER
 * ```
 * The issuer is the realm URL; endpoints come from its discovery document.
 * @see https://www.keycloak.org/docs/latest/securing_apps/#_oidc
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { KeycloakProfile } from "./profiles/keycloak.js"

export type { KeycloakProfile } from "./profiles/keycloak.js"

export default function Keycloak(options: OAuthUserConfig<KeycloakProfile> = {}): OIDCConfig<KeycloakProfile> {
  const preset: OIDCConfig<KeycloakProfile> = {
    id: "keycloak",
    name: "Keycloak",
    type: "oidc",
    profile: defaultProfile,
    style: { bg: "#fff", text: "#000", brandColor: "#4d4d4d" },
  }
  return presetWith(preset, options)
}
