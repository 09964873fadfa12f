/**
 * Sign in with Authentik (OpenID Connect).
 *
 * @example
 * ```ts
 * import Authentik from "authchart/providers/authentik"
 * Authentik({ issuer: "https://authentik.acme.example/application/o/acme" }) // or set AUTH_AUTHENTIK_ISSUER, with AUTH_AUTHENTIK_ID and _SECRET
 * ```
 * The issuer is the application's slug URL; endpoints come from its discovery document.
 * @see https://docs.goauthentik.io/docs/add-secure-apps/providers/oauth2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { AuthentikProfile } from "./profiles/authentik.js"

export type { AuthentikProfile } from "./profiles/authentik.js"

export default function Authentik(options: OAuthUserConfig<AuthentikProfile> = {}): OIDCConfig<AuthentikProfile> {
  const preset: OIDCConfig<AuthentikProfile> = {
    id: "authentik",
    name: "Authentik",
    type: "oidc",
  }
  return presetWith(preset, options)
}
