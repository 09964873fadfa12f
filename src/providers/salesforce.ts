/**
 * Sign in with Salesforce (OpenID Connect).
 *
 * @example
 * ```ts
 * import Salesforce from "authchart/providers/salesforce"
 * Salesforce() // reads AUTH_SALESFORCE_ID and AUTH_SALESFORCE_SECRET
 * ```
 * The profile comes from the userinfo endpoint (`idToken: false`). For a sandbox or My Domain, pass
 * its `issuer`.
 * @see https://help.salesforce.com/s/articleView?id=sf.remoteaccess_authenticate.htm
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { SalesforceProfile } from "./profiles/salesforce.js"

export type { SalesforceProfile } from "./profiles/salesforce.js"

export default function Salesforce(options: OAuthUserConfig<SalesforceProfile> = {}): OIDCConfig<SalesforceProfile> {
  const preset: OIDCConfig<SalesforceProfile> = {
    id: "salesforce",
    name: "Salesforce",
    type: "oidc",
    issuer: "https://login.salesforce.com",
    idToken: false,
    checks: ["pkce", "state", "nonce"],
    style: { bg: "#00a1e0" },
  }
  return presetWith(preset, options)
}
