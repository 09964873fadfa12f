/**
 * Sign in with Twitch (OpenID Connect).
 *
 * @example
 * ```ts
 * import Twitch from "authchart/providers/twitch"
 * Twitch() // reads AUTH_TWITCH_ID and AUTH_TWITCH_SECRET
 * ```
 * Asks for `openid user:read:email` and requests the `email`, `picture` and `preferred_username`
 * ID token claims (OpenID Connect Core §5.5). Twitch's token response sends `scope` as an array and
 * errors as `{ status, message }`; the preset rewrites both to RFC 6749 §5.1/§5.2 form.
 * @see https://dev.twitch.tv/docs/authentication/getting-tokens-oidc/
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { TwitchProfile } from "./profiles/twitch.js"

export type { TwitchProfile } from "./profiles/twitch.js"

const idTokenClaims = { id_token: { email: null, picture: null, preferred_username: null } }

export default function Twitch(options: OAuthUserConfig<TwitchProfile> = {}): OIDCConfig<TwitchProfile> {
  const preset: OIDCConfig<TwitchProfile> = {
    id: "twitch",
    name: "Twitch",
    type: "oidc",
    issuer: "https://id.twitch.tv/oauth2",
    authorization: { params: { scope: "openid user:read:email", claims: idTokenClaims } },
    token: { conform: conformTwitchTokenResponse },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile: defaultProfile,
    style: { bg: "#65459b", text: "#fff", brandColor: "#9146ff" },
  }
  return presetWith(preset, options)
}

/**
 * Rewrites Twitch's token response to the RFC 6749 shape, or returns `undefined` when it already
 * has it.
 *
 * @example
 * ```ts
 * await conformTwitchTokenResponse(Response.json({ access_token: "a", token_type: "bearer", scope: ["openid"] }))
 * // → a Response whose JSON has scope "openid"
 * ```
 */
export async function conformTwitchTokenResponse(response: Response): Promise<Response | undefined> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined)
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined
  const json = body as Record<string, unknown>
  if (response.ok) {
    if (Array.isArray(json.scope)) return rewrite(response, { ...json, scope: json.scope.join(" ") })
    if ("scope" in json && typeof json.scope !== "string") {
      const { scope: _dropped, ...rest } = json
      return rewrite(response, rest)
    }
    return undefined
  }
  if (typeof json.error === "string") return undefined
  const description = typeof json.message === "string" ? json.message : undefined
  return rewrite(response, { error: "invalid_request", error_description: description })
}

function rewrite(response: Response, body: Record<string, unknown>): Response {
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  headers.delete("content-encoding")
  return Response.json(body, { status: response.status, statusText: response.statusText, headers })
}
