/**
 * Sign in with Mailchimp (OAuth 2).
 *
 * @example
 * ```ts
 * import Mailchimp from "authchart/providers/mailchimp"
 * Mailchimp() // reads AUTH_MAILCHIMP_ID and AUTH_MAILCHIMP_SECRET
 * ```
 * @see https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The account, from `GET /oauth2/metadata`. */
export interface MailchimpProfile {
  accountname: string
  login: { login_id: number | string; email: string; [field: string]: unknown }
  [field: string]: unknown
}

export default function Mailchimp(options: OAuthUserConfig<MailchimpProfile> = {}): OAuthConfig<MailchimpProfile> {
  const preset: OAuthConfig<MailchimpProfile> = {
    id: "mailchimp",
    name: "Mailchimp",
    type: "oauth",
    authorization: "https://login.mailchimp.com/oauth2/authorize",
    token: "https://login.mailchimp.com/oauth2/token",
    userinfo: "https://login.mailchimp.com/oauth2/metadata",
    profile(profile) {
      return { id: String(profile.login.login_id), name: profile.accountname, email: profile.login.email, image: null }
    },
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith(preset, options)
}
