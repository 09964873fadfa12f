/**
 * A custom OpenID Connect provider: give the `issuer`, and the endpoints come from its discovery
 * document (`<issuer>/.well-known/openid-configuration`, OpenID Connect Discovery 1.0 §4).
 *
 * @example
 * ```ts
 * import OIDC from "authchart/providers/oidc"
 * OIDC({
 *   id: "acme",
 *   name: "Acme",
 *   issuer: "https://id.acme.example",
 *   clientId: process.env.AUTH_ACME_ID,
 *   clientSecret: process.env.AUTH_ACME_SECRET,
 * })
 * ```
 * authchart sends PKCE (S256), `state` and `nonce`, asks for `openid profile email` unless the
 * authorization params set a `scope`, and reads the user from the ID token claims
 * ({@link defaultProfile} unless you give `profile`).
 */
import { defaultProfile } from "./oauth.js"
import type { OAuthOptions } from "./oauth.js"
import type { OIDCConfig } from "./oauth-types.js"

export type { OAuthOptions as OIDCOptions } from "./oauth.js"
export type { OIDCConfig } from "./oauth-types.js"

export default function OIDC(options: OAuthOptions): OIDCConfig {
  return {
    ...options,
    name: options.name ?? options.id,
    type: "oidc",
    profile: options.profile ?? defaultProfile,
  }
}
