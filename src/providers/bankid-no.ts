/**
 * Sign in with BankID Norge (OpenID Connect).
 *
 * @example
 * ```ts
 * import BankIDNorway from "authchart/providers/bankid-no"
 * BankIDNorway() // reads AUTH_BANKID_NO_ID and AUTH_BANKID_NO_SECRET
 * ```
 * The profile is read from the signed userinfo answer (RS256); the client authenticates with
 * `client_secret_post`. For BankID's test environment pass its `issuer`.
 * @see https://developer.bankid.no/bankid-with-biometrics/apis/oidc/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { BankIDNorwayProfile } from "./profiles/bankid-no.js"

export type { BankIDNorwayProfile } from "./profiles/bankid-no.js"

export default function BankIDNorway(options: OAuthUserConfig<BankIDNorwayProfile> = {}): OIDCConfig<BankIDNorwayProfile> {
  const preset: OIDCConfig<BankIDNorwayProfile> = {
    id: "bankid-no",
    name: "BankID Norge",
    type: "oidc",
    issuer: "https://auth.bankid.no/auth/realms/prod",
    client: { token_endpoint_auth_method: "client_secret_post", userinfo_signed_response_alg: "RS256" },
    idToken: false,
    authorization: { params: { ui_locales: "no", login_hint: "BIS" } },
    checks: ["pkce", "state", "nonce"],
    profile(profile) {
      return { id: profile.sub, name: profile.name, email: profile.email ?? null, image: null }
    },
    style: { text: "#fff", bg: "#39134c" },
  }
  return presetWith(preset, options)
}
