/**
 * Sign in with Oracle NetSuite (OAuth 2).
 *
 * @example
 * ```ts
 * import NetSuite from "authchart/providers/netsuite"
 * NetSuite({
 *   accountID: "TSTDRV1234567",
 *   prompt: "login",
 *   scope: "restlets rest_webservices",
 *   userinfo: "https://tstdrv1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=123&deploy=1",
 * })
 * ```
 * NetSuite has no userinfo endpoint: `userinfo` is a RESTlet of yours that answers the user as JSON.
 * Sends `state` only (no PKCE).
 * @see https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157771733782.html
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { NetSuiteProfile } from "./profiles/netsuite.js"

export type { NetSuiteProfile } from "./profiles/netsuite.js"

/** NetSuite's own options: the account, the consent prompt, the scopes and your userinfo RESTlet. */
export interface OAuthNetSuiteOptions {
  prompt: string | "none" | "login" | "consent"
  accountID: string
  scope: string
  userinfo: string
}

export default function NetSuite<P extends NetSuiteProfile = NetSuiteProfile>(
  options: OAuthUserConfig<P> & OAuthNetSuiteOptions,
): OAuthConfig<P> {
  const { accountID } = options
  const preset: OAuthConfig<P> = {
    id: "netsuite",
    name: "NetSuite",
    type: "oauth",
    checks: ["state"],
    authorization: {
      url: `https://${accountID}.app.netsuite.com/app/login/oauth2/authorize.nl`,
      params: { scope: "restlets rest_webservices" },
    },
    token: `https://${accountID}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token`,
    profile(profile) {
      return { id: profile.id.toString(), name: profile.name, email: profile.email, image: null }
    },
    style: { logo: "/netsuite.svg", bg: "#181a1b", text: "#fbfbfb" },
  }
  return presetWith<P>(preset, options)
}
