/**
 * Sign in with SAML single sign-on through Osso (an OAuth 2 front for SAML identity providers).
 *
 * @example
 * ```ts
 * import Osso from "authchart/providers/osso"
 * Osso({ issuer: "https://acme.ossoapp.io/" }) // note the trailing slash
 * ```
 * `issuer` is your Osso deployment's URL, ending in `/`; its `oauth/*` endpoints speak plain OAuth 2.
 * @see https://ossoapp.com/docs/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { Profile } from "../types.js"

export default function Osso(options: OAuthUserConfig<Profile> = {}): OAuthConfig<Profile> {
  const { issuer } = options
  const preset: OAuthConfig<Profile> = {
    id: "osso",
    name: "Osso",
    type: "oauth",
    authorization: `${issuer}oauth/authorize`,
    token: `${issuer}oauth/token`,
    userinfo: `${issuer}oauth/me`,
  }
  return presetWith(preset, options)
}
