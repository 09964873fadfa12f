/**
 * Sign in with Pipedrive (OAuth 2).
 *
 * @example
 * ```ts
 * import Pipedrive from "authchart/providers/pipedrive"
 * Pipedrive() // reads AUTH_PIPEDRIVE_ID and AUTH_PIPEDRIVE_SECRET
 * ```
 * @see https://pipedrive.readme.io/docs/marketplace-oauth-authorization
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { PipedriveProfile } from "./profiles/pipedrive.js"

export type { PipedriveProfile } from "./profiles/pipedrive.js"

export default function Pipedrive(options: OAuthUserConfig<PipedriveProfile> = {}): OAuthConfig<PipedriveProfile> {
  const preset: OAuthConfig<PipedriveProfile> = {
    id: "pipedrive",
    name: "Pipedrive",
    type: "oauth",
    authorization: "https://oauth.pipedrive.com/oauth/authorize",
    token: "https://oauth.pipedrive.com/oauth/token",
    userinfo: "https://api.pipedrive.com/users/me",
    profile({ data }) {
      return { id: data.id.toString(), name: data.name, email: data.email, image: data.icon_url }
    },
  }
  return presetWith(preset, options)
}
