/**
 * Sign in with ClickUp (OAuth 2).
 *
 * @example
 * ```ts
 * import ClickUp from "authchart/providers/click-up"
 * ClickUp() // reads AUTH_CLICK_UP_ID and AUTH_CLICK_UP_SECRET
 * ```
 * Sends `state` only (no PKCE). As in Auth.js, the user carries ClickUp's `profilePicture` and `color`
 * and no email address.
 * @see https://clickup.com/api/developer-portal/authentication/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { ClickUpProfile } from "./profiles/click-up.js"
import type { User } from "../types.js"

export type { ClickUpProfile } from "./profiles/click-up.js"

export default function ClickUp(options: OAuthUserConfig<ClickUpProfile> = {}): OAuthConfig<ClickUpProfile> {
  const preset: OAuthConfig<ClickUpProfile> = {
    id: "click-up",
    name: "ClickUp",
    type: "oauth",
    authorization: "https://app.clickup.com/api",
    token: "https://api.clickup.com/api/v2/oauth/token",
    userinfo: "https://api.clickup.com/api/v2/user",
    checks: ["state"],
    profile({ user }) {
      const mapped: User & { profilePicture: string; color: string } = {
        id: user.id.toString(),
        name: user.username,
        profilePicture: user.profilePicture,
        color: user.color,
      }
      return mapped
    },
    style: { bg: "#24292f", text: "#fff" },
  }
  return presetWith(preset, options)
}
