/**
 * Sign in with Frontegg (OpenID Connect).
 *
 * @example
 * ```ts
 * import Frontegg from "authchart/providers/frontegg"
 * Frontegg({ issuer: "https://acme.frontegg.com" }) // or set AUTH_FRONTEGG_ISSUER
 * ```
 * The issuer is your Frontegg workspace domain; the profile comes from `/identity/resources/users/v2/me`.
 * @see https://docs.frontegg.com/docs/using-frontegg-oauth-endpoints
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { FronteggProfile } from "./profiles/frontegg.js"

export type { FronteggProfile } from "./profiles/frontegg.js"

export default function Frontegg(options: OAuthUserConfig<FronteggProfile> = {}): OIDCConfig<FronteggProfile> {
  const { issuer } = options
  const preset: OIDCConfig<FronteggProfile> = {
    id: "frontegg",
    name: "Frontegg",
    type: "oidc",
    authorization: `${issuer}/oauth/authorize`,
    token: `${issuer}/oauth/token`,
    userinfo: `${issuer}/identity/resources/users/v2/me`,
    wellKnown: `${issuer}/oauth/.well-known/openid-configuration`,
    issuer,
  }
  return presetWith(preset, options)
}
