/**
 * Sign in with Dropbox (OAuth 2).
 *
 * @example
 * ```ts
 * import Dropbox from "authchart/providers/dropbox"
 * Dropbox() // reads AUTH_DROPBOX_ID and AUTH_DROPBOX_SECRET
 * ```
 * Asks for `account_info.read` with offline access (a refresh token). The account comes from
 * `POST /2/users/get_current_account`.
 * @see https://developers.dropbox.com/oauth-guide
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import { requestJson } from "./userinfo-request.js"

/** The current account, from `POST /2/users/get_current_account`. */
export interface DropboxProfile {
  account_id: string
  name: { given_name: string; surname: string; familiar_name: string; display_name: string; abbreviated_name: string }
  email: string
  email_verified: boolean
  disabled: boolean
  locale?: string
  country?: string
  profile_photo_url?: string
  [field: string]: unknown
}

export default function Dropbox(options: OAuthUserConfig<DropboxProfile> = {}): OAuthConfig<DropboxProfile> {
  return presetWith<DropboxProfile>(
    {
      id: "dropbox",
      name: "Dropbox",
      type: "oauth",
      authorization: {
        url: "https://www.dropbox.com/oauth2/authorize",
        params: { token_access_type: "offline", scope: "account_info.read" },
      },
      token: "https://api.dropboxapi.com/oauth2/token",
      userinfo: {
        url: "https://api.dropboxapi.com/2/users/get_current_account",
        request: ({ tokens, provider }: UserinfoRequestContext) =>
          requestJson(provider.userinfo?.url ?? "", { method: "POST", accessToken: tokens.access_token, timeout: options.timeout }),
      },
      profile: (profile) => ({
        id: String(profile.account_id),
        name: profile.name?.display_name ?? null,
        email: profile.email ?? null,
        image: profile.profile_photo_url ?? null,
      }),
      style: { bg: "#0061fe", text: "#fff", brandColor: "#0061fe" },
    },
    options,
  )
}
