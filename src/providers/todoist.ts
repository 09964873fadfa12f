/**
 * Sign in with Todoist (OAuth 2).
 *
 * @example
 * ```ts
 * import Todoist from "authchart/providers/todoist"
 * Todoist() // reads AUTH_TODOIST_ID and AUTH_TODOIST_SECRET
 * ```
 * Asks for `data:read`. The profile is the `user` resource of a Sync API call; the client authenticates
 * with `client_secret_post`.
 * @see https://developer.todoist.com/guides/#oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { TodoistProfile } from "./profiles/todoist.js"
import { requestJson } from "./userinfo-request.js"

export type { TodoistProfile } from "./profiles/todoist.js"

export default function TodoistProvider<P extends TodoistProfile = TodoistProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  const preset: OAuthConfig<P> = {
    id: "todoist",
    name: "Todoist",
    type: "oauth",
    authorization: { url: "https://todoist.com/oauth/authorize", params: { scope: "data:read" } },
    token: "https://todoist.com/oauth/access_token",
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: {
      async request({ tokens }: UserinfoRequestContext) {
        const answer = await requestJson("https://api.todoist.com/sync/v9/sync", {
          method: "POST",
          accessToken: tokens.access_token,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ sync_token: "*", resource_types: '["user"]' }),
          timeout: options.timeout,
        })
        if (typeof answer.user !== "object" || answer.user === null) throw new Error("The Todoist sync answer has no user")
        return answer.user
      },
    },
    profile(profile) {
      return { id: profile.id, email: profile.email, name: profile.full_name, image: profile.avatar_big }
    },
    style: { text: "#000", bg: "#E44332" },
  }
  return presetWith(preset, options)
}
