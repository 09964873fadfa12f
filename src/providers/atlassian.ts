/**
 * Sign in with Atlassian (OAuth 2.0 3LO: Jira, Confluence, Bitbucket Cloud accounts).
 *
 * @example
 * ```ts
 * import Atlassian from "authchart/providers/atlassian"
 * Atlassian() // reads AUTH_ATLASSIAN_ID and AUTH_ATLASSIAN_SECRET
 * ```
 * Asks for `read:me` with audience `api.atlassian.com`.
 * @see https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { AtlassianProfile } from "./profiles/atlassian.js"

export type { AtlassianProfile } from "./profiles/atlassian.js"

export default function Atlassian(options: OAuthUserConfig<AtlassianProfile> = {}): OAuthConfig<AtlassianProfile> {
  return presetWith<AtlassianProfile>(
    {
      id: "atlassian",
      name: "Atlassian",
      type: "oauth",
      authorization: { url: "https://auth.atlassian.com/authorize", params: { audience: "api.atlassian.com", scope: "read:me" } },
      token: "https://auth.atlassian.com/oauth/token",
      userinfo: "https://api.atlassian.com/me",
      profile: (profile) => ({
        id: String(profile.account_id),
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }),
      style: { bg: "#0052cc", text: "#fff", brandColor: "#0052cc" },
    },
    options,
  )
}
