/**
 * Sign in with Eventbrite (OAuth 2).
 *
 * @example
 * ```ts
 * import Eventbrite from "authchart/providers/eventbrite"
 * Eventbrite() // reads AUTH_EVENTBRITE_ID and AUTH_EVENTBRITE_SECRET
 * ```
 * Asks for `user.profile`; the email is the user's primary address.
 * @see https://www.eventbrite.com/platform/docs/authentication
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { EventbriteProfile } from "./profiles/eventbrite.js"

export type { EventbriteProfile } from "./profiles/eventbrite.js"

export default function Eventbrite(options: OAuthUserConfig<EventbriteProfile> = {}): OAuthConfig<EventbriteProfile> {
  const preset: OAuthConfig<EventbriteProfile> = {
    id: "eventbrite",
    name: "Eventbrite",
    type: "oauth",
    authorization: { url: "https://www.eventbrite.com/oauth/authorize", params: { scope: "user.profile" } },
    token: "https://www.eventbrite.com/oauth/token",
    userinfo: "https://www.eventbriteapi.com/v3/users/me/",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const image = profile.image_id
        ? `https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F${profile.image_id}%2F1%2Foriginal.jpg`
        : null
      return { id: profile.id, name: profile.name, email: profile.emails.find((e) => e.primary)?.email, image }
    },
    style: { bg: "#f05537", text: "#fff" },
  }
  return presetWith(preset, options)
}
