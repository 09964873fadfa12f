/**
 * Sign in with OneLogin (OpenID Connect).
 *
 * @example
 * ```ts
 * import OneLogin from "authchart/providers/onelogin"
 * OneLogin({ issuer: "https://acme.onelogin.com" })
 * ```
 * Discovery is read from `<issuer>/oidc/2/.well-known/openid-configuration`.
 * @see https://developers.onelogin.com/openid-connect
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { Profile } from "../types.js"

export default function OneLogin(options: OAuthUserConfig<Profile> = {}): OIDCConfig<Profile> {
  const preset: OIDCConfig<Profile> = {
    id: "onelogin",
    name: "OneLogin",
    type: "oidc",
    ...(options.issuer ? { wellKnown: `${options.issuer}/oidc/2/.well-known/openid-configuration` } : {}),
  }
  return presetWith(preset, options)
}
