/**
 * Sign in with Reddit (OAuth 2).
 *
 * @example
 * ```ts
 * import Reddit from "authchart/providers/reddit"
 * Reddit() // reads AUTH_REDDIT_ID and AUTH_REDDIT_SECRET
 * ```
 * Asks for `identity`. Reddit shares no email address, so `email` is null; the image is the user's
 * icon without its query string (Reddit HTML-escapes it in JSON).
 * @see https://github.com/reddit-archive/reddit/wiki/OAuth2
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The current user, from `GET https://oauth.reddit.com/api/v1/me`. */
export interface RedditProfile {
  /** The account id without its `t2_` prefix. */
  id: string
  name: string
  icon_img?: string
  snoovatar_img?: string
  created_utc?: number
  total_karma?: number
  verified?: boolean
  has_verified_email?: boolean
  [field: string]: unknown
}

function iconUrl(icon: string | undefined): string | null {
  if (!icon) return null
  return icon.split("?")[0] ?? null
}

export default function Reddit(options: OAuthUserConfig<RedditProfile> = {}): OAuthConfig<RedditProfile> {
  return presetWith<RedditProfile>(
    {
      id: "reddit",
      name: "Reddit",
      type: "oauth",
      authorization: "https://www.reddit.com/api/v1/authorize?scope=identity",
      token: "https://www.reddit.com/api/v1/access_token",
      userinfo: "https://oauth.reddit.com/api/v1/me",
      profile: (profile) => ({
        id: String(profile.id),
        name: profile.name ?? null,
        email: null,
        image: profile.snoovatar_img || iconUrl(profile.icon_img),
      }),
      style: { bg: "#ff4500", text: "#fff", brandColor: "#ff4500" },
    },
    options,
  )
}
