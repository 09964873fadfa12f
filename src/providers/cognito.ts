/**
 * Sign in with Amazon Cognito (OpenID Connect).
 *
 * @example
 * ```ts
 * import Cognito from "authchart/providers/cognito"
 * Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123" }) // or set AUTH_COGNITO_ISSUER, with AUTH_COGNITO_ID and _SECRET
 * ```
 * The issuer is the user pool's URL; endpoints come from its discovery document.
 * @see https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-oidc-flow.html
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { CognitoProfile } from "./profiles/cognito.js"

export type { CognitoProfile } from "./profiles/cognito.js"

export default function Cognito(options: OAuthUserConfig<CognitoProfile> = {}): OIDCConfig<CognitoProfile> {
  const preset: OIDCConfig<CognitoProfile> = {
    id: "cognito",
    name: "Cognito",
    type: "oidc",
    style: { brandColor: "#C17B9E" },
  }
  return presetWith(preset, options)
}
