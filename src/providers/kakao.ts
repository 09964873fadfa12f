/**
 * Sign in with Kakao (OAuth 2).
 *
 * @example
 * ```ts
 * import Kakao from "authchart/providers/kakao"
 * Kakao() // reads AUTH_KAKAO_ID and AUTH_KAKAO_SECRET
 * ```
 * The consent items (profile, email) are the ones set on the Kakao app. The id is Kakao's numeric
 * user id as a string.
 * @see https://developers.kakao.com/docs/latest/en/kakaologin/rest-api
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { KakaoProfile } from "./profiles/kakao.js"

export type { DateTime, Gender, Birthday, AgeRange, KakaoProfile } from "./profiles/kakao.js"

export default function Kakao(options: OAuthUserConfig<KakaoProfile> = {}): OAuthConfig<KakaoProfile> {
  return presetWith<KakaoProfile>(
    {
      id: "kakao",
      name: "Kakao",
      type: "oauth",
      authorization: "https://kauth.kakao.com/oauth/authorize?scope",
      token: "https://kauth.kakao.com/oauth/token",
      userinfo: "https://kapi.kakao.com/v2/user/me",
      client: { token_endpoint_auth_method: "client_secret_post" },
      profile: (profile) => {
        const account = profile.kakao_account
        return {
          id: String(profile.id),
          name: account?.profile?.nickname ?? profile.properties?.nickname ?? null,
          email: account?.email && account.is_email_valid !== false ? account.email : null,
          image: account?.profile?.is_default_image ? null : (account?.profile?.profile_image_url ?? null),
        }
      },
      style: { bg: "#fee500", text: "#000", brandColor: "#fee500" },
    },
    options,
  )
}
