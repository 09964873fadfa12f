/**
 * Sign in with Mattermost (OAuth 2), on your own server.
 *
 * @example
 * ```ts
 * import Mattermost from "authchart/providers/mattermost"
 * Mattermost({ issuer: "https://chat.acme.example" })
 * ```
 * `issuer` is the server's base URL; it only builds the endpoints (Mattermost is no OpenID Connect
 * issuer), and the client authenticates with `client_secret_post`.
 * @see https://developers.mattermost.com/integrate/apps/authentication/oauth2/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { MattermostProfile } from "./profiles/mattermost.js"

export type { MattermostProfile } from "./profiles/mattermost.js"

export default function Mattermost<P extends MattermostProfile = MattermostProfile>(
  options: OAuthUserConfig<P> & { issuer: string },
): OAuthConfig<P> {
  const { issuer, ...rest } = options
  const preset: OAuthConfig<P> = {
    id: "mattermost",
    name: "Mattermost",
    type: "oauth",
    client: { token_endpoint_auth_method: "client_secret_post" },
    token: `${issuer}/oauth/access_token`,
    authorization: `${issuer}/oauth/authorize`,
    userinfo: `${issuer}/api/v4/users/me`,
    profile(profile) {
      return { id: profile.id, name: profile.username ?? `${profile.first_name} ${profile.last_name}`, email: profile.email, image: null }
    },
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith<P>(preset, rest)
}
