/**
 * Sign in with Nextcloud (OAuth 2), on your own server.
 *
 * @example
 * ```ts
 * import Nextcloud from "authchart/providers/nextcloud"
 * Nextcloud({ issuer: "https://cloud.acme.example" }) // or set AUTH_NEXTCLOUD_ISSUER
 * ```
 * `issuer` is the server's base URL. The profile is the OCS user (`/ocs/v1.php/cloud/users/<user_id>`);
 * the image is the user's avatar on the server.
 * @see https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/oauth2.html
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { NextcloudProfile } from "./profiles/nextcloud.js"
import { requestJson } from "./userinfo-request.js"

export type { NextcloudProfile } from "./profiles/nextcloud.js"

export default function Nextcloud(options: OAuthUserConfig<NextcloudProfile> = {}): OAuthConfig<NextcloudProfile> {
  const { issuer } = options
  const preset: OAuthConfig<NextcloudProfile> = {
    id: "nextcloud",
    name: "Nextcloud",
    type: "oauth",
    authorization: `${issuer}/apps/oauth2/authorize`,
    token: `${issuer}/apps/oauth2/api/v1/token`,
    userinfo: {
      url: `${issuer}/ocs/v1.php/cloud/users`,
      async request({ tokens, provider }: UserinfoRequestContext) {
        const url = `${provider.userinfo?.url}/${encodeURIComponent(String(tokens.user_id))}`
        const answer = await requestJson(url, {
          accessToken: tokens.access_token,
          headers: { "OCS-APIRequest": "true" },
          timeout: options.timeout,
        })
        return ocsData(answer)
      },
    },
    profile(profile) {
      return { id: profile.id, name: profile.displayname, email: profile.email, image: `${issuer}/avatar/${profile.id}/512` }
    },
    style: { logo: "/nextcloud.svg", bg: "#fff", text: "#0082C9" },
  }
  return presetWith(preset, options)
}

/** The `ocs.data` of an OCS answer, or an error when the answer has none. */
function ocsData(answer: Record<string, unknown>): object {
  const ocs = answer.ocs
  const data = typeof ocs === "object" && ocs !== null && "data" in ocs ? ocs.data : undefined
  if (typeof data !== "object" || data === null) throw new Error("The Nextcloud user answer has no ocs.data")
  return data
}
