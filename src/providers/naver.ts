/**
 * Sign in with Naver (OAuth 2).
 *
 * @example
 * ```ts
 * import Naver from "authchart/providers/naver"
 * Naver() // reads AUTH_NAVER_ID and AUTH_NAVER_SECRET
 * ```
 * The consent items are the ones set on the Naver app. The profile arrives wrapped in `response`.
 * @see https://developers.naver.com/docs/login/profile/profile.md
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { NaverProfile } from "./profiles/naver.js"

export type { NaverProfile } from "./profiles/naver.js"

export default function Naver(options: OAuthUserConfig<NaverProfile> = {}): OAuthConfig<NaverProfile> {
  return presetWith<NaverProfile>(
    {
      id: "naver",
      name: "Naver",
      type: "oauth",
      authorization: "https://nid.naver.com/oauth2.0/authorize",
      token: "https://nid.naver.com/oauth2.0/token",
      userinfo: "https://openapi.naver.com/v1/nid/me",
      profile: ({ response: user }) => ({
        id: String(user.id),
        name: user.nickname ?? user.name ?? null,
        email: user.email ?? null,
        image: user.profile_image ?? null,
      }),
      style: { bg: "#03c75a", text: "#fff", brandColor: "#03c75a" },
    },
    options,
  )
}
