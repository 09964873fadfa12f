/**
 * Sign in with Bitbucket Cloud (OAuth 2).
 *
 * @example
 * ```ts
 * import Bitbucket from "authchart/providers/bitbucket"
 * Bitbucket() // reads AUTH_BITBUCKET_ID and AUTH_BITBUCKET_SECRET
 * ```
 * Asks for `account`. `GET /2.0/user` carries no email address (that needs the `email` scope and
 * `GET /2.0/user/emails`), so `email` is null.
 * @see https://developer.atlassian.com/cloud/bitbucket/oauth-2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { BitbucketProfile } from "./profiles/bitbucket.js"

export type { BitbucketProfile } from "./profiles/bitbucket.js"

export default function Bitbucket(options: OAuthUserConfig<BitbucketProfile> = {}): OAuthConfig<BitbucketProfile> {
  return presetWith<BitbucketProfile>(
    {
      id: "bitbucket",
      name: "Bitbucket",
      type: "oauth",
      authorization: { url: "https://bitbucket.org/site/oauth2/authorize", params: { scope: "account" } },
      token: "https://bitbucket.org/site/oauth2/access_token",
      userinfo: "https://api.bitbucket.org/2.0/user",
      profile: (profile) => ({
        id: String(profile.account_id),
        name: profile.display_name ?? profile.username ?? profile.nickname ?? null,
        email: null,
        image: profile.links?.avatar?.href ?? null,
      }),
      style: { bg: "#205081", text: "#fff", brandColor: "#0052cc" },
    },
    options,
  )
}
