/**
 * Sign in with LinkedIn (OpenID Connect).
 *
 * @example
 * ```ts
 * import LinkedIn from "authchart/providers/linkedin"
 * LinkedIn() // reads AUTH_LINKEDIN_ID and AUTH_LINKEDIN_SECRET
 * ```
 * LinkedIn's token endpoint rejects a PKCE `code_verifier` from web apps and its ID tokens carry no
 * `nonce`, so this preset checks `state` only, and sends the client secret in the request body.
 * @see https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { LinkedInProfile } from "./profiles/linkedin.js"

export type { LinkedInProfile } from "./profiles/linkedin.js"

export default function LinkedIn(options: OAuthUserConfig<LinkedInProfile> = {}): OIDCConfig<LinkedInProfile> {
  const preset: OIDCConfig<LinkedInProfile> = {
    id: "linkedin",
    name: "LinkedIn",
    type: "oidc",
    issuer: "https://www.linkedin.com/oauth",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile: defaultProfile,
    style: { bg: "#069", text: "#fff", brandColor: "#0a66c2" },
  }
  return presetWith(preset, options)
}
