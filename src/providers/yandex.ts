/**
 * Sign in with Yandex ID (OAuth 2).
 *
 * @example
 * ```ts
 * import Yandex from "authchart/providers/yandex"
 * Yandex() // reads AUTH_YANDEX_ID and AUTH_YANDEX_SECRET
 * ```
 * Asks for `login:info login:email login:avatar`. The image is the user's avatar unless it is the
 * empty default.
 * @see https://yandex.com/dev/id/doc/en/user-information
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { YandexProfile } from "./profiles/yandex.js"

export type { YandexProfile } from "./profiles/yandex.js"

export default function Yandex(options: OAuthUserConfig<YandexProfile> = {}): OAuthConfig<YandexProfile> {
  return presetWith<YandexProfile>(
    {
      id: "yandex",
      name: "Yandex",
      type: "oauth",
      authorization: "https://oauth.yandex.ru/authorize?scope=login:info+login:email+login:avatar",
      token: "https://oauth.yandex.ru/token",
      userinfo: "https://login.yandex.ru/info?format=json",
      profile: (profile) => ({
        id: String(profile.id),
        name: profile.display_name ?? profile.real_name ?? profile.first_name ?? profile.login ?? null,
        email: profile.default_email ?? profile.emails?.[0] ?? null,
        image:
          profile.default_avatar_id && !profile.is_avatar_empty
            ? `https://avatars.yandex.net/get-yapic/${profile.default_avatar_id}/islands-200`
            : null,
      }),
      style: { bg: "#ffcc00", text: "#000", brandColor: "#fc3f1d" },
    },
    options,
  )
}
