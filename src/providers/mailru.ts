/**
 * Sign in with Mail.ru (OAuth 2).
 *
 * @example
 * ```ts
 * import Mailru from "authchart/providers/mailru"
 * Mailru() // reads AUTH_MAILRU_ID and AUTH_MAILRU_SECRET
 * ```
 * Asks for `userinfo`; the profile is mapped by the default mapping (`id`, `name`, `email`, `picture`).
 * @see https://oauth.mail.ru/docs
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { Profile } from "../types.js"

export default function Mailru(options: OAuthUserConfig<Profile> = {}): OAuthConfig<Profile> {
  const preset: OAuthConfig<Profile> = {
    id: "mailru",
    name: "Mail.ru",
    type: "oauth",
    authorization: "https://oauth.mail.ru/login?scope=userinfo",
    token: "https://oauth.mail.ru/token",
    userinfo: "https://oauth.mail.ru/userinfo",
  }
  return presetWith(preset, options)
}
