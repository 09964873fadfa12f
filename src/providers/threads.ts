/**
 * Sign in with Threads (OAuth 2).
 *
 * @example
 * ```ts
 * import Threads from "authchart/providers/threads"
 * Threads() // reads AUTH_THREADS_ID and AUTH_THREADS_SECRET
 * ```
 * Asks for `threads_basic`; sends `state` only (no PKCE). Threads shares no email address.
 * @see https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { ThreadsProfile } from "./profiles/threads.js"

export type { ThreadsProfile } from "./profiles/threads.js"

export default function Threads(options: OAuthUserConfig<ThreadsProfile> = {}): OAuthConfig<ThreadsProfile> {
  const preset: OAuthConfig<ThreadsProfile> = {
    id: "threads",
    name: "Threads",
    type: "oauth",
    authorization: "https://threads.net/oauth/authorize?scope=threads_basic",
    token: "https://graph.threads.net/oauth/access_token",
    userinfo: "https://graph.threads.net/v1.0/me?fields=id,username,threads_profile_picture_url",
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile({ data }) {
      return { id: data.id, name: data.username || null, email: null, image: data.threads_profile_picture_url || null }
    },
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith(preset, options)
}
