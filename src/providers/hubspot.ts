/**
 * Sign in with HubSpot (OAuth 2).
 *
 * @example
 * ```ts
 * import HubSpot from "authchart/providers/hubspot"
 * HubSpot() // reads AUTH_HUBSPOT_ID and AUTH_HUBSPOT_SECRET
 * ```
 * Asks for `oauth`. HubSpot has no userinfo endpoint: the profile is the access token's metadata
 * (`GET /oauth/v1/access-tokens/<token>`), whose `user` is the email address. No picture.
 * @see https://developers.hubspot.com/docs/api/oauth-quickstart-guide
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import { requestJson } from "./userinfo-request.js"
import type { HubSpotProfile } from "./profiles/hubspot.js"

export type { HubSpotProfile } from "./profiles/hubspot.js"

export default function HubSpot(options: OAuthUserConfig<HubSpotProfile> = {}): OAuthConfig<HubSpotProfile> {
  return presetWith<HubSpotProfile>(
    {
      id: "hubspot",
      name: "HubSpot",
      type: "oauth",
      authorization: { url: "https://app.hubspot.com/oauth/authorize", params: { scope: "oauth", client_id: options.clientId } },
      client: { token_endpoint_auth_method: "client_secret_post" },
      token: "https://api.hubapi.com/oauth/v1/token",
      userinfo: {
        url: "https://api.hubapi.com/oauth/v1/access-tokens",
        request: ({ tokens, provider }: UserinfoRequestContext) =>
          requestJson(`${provider.userinfo?.url}/${encodeURIComponent(tokens.access_token ?? "")}`, { timeout: options.timeout }),
      },
      profile: (profile) => ({ id: String(profile.user_id), name: profile.user, email: profile.user, image: null }),
      style: { bg: "#ff7a59", text: "#fff", brandColor: "#ff7a59" },
    },
    options,
  )
}
