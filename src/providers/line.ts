/**
 * Sign in with LINE (OpenID Connect, LINE Login v2.1).
 *
 * @example
 * ```ts
 * import LINE from "authchart/providers/line"
 * LINE() // reads AUTH_LINE_ID and AUTH_LINE_SECRET
 * ```
 * Endpoints from LINE's discovery document; LINE signs ID tokens with HS256 (the channel secret).
 * The email claim needs the email permission on the channel.
 * @see https://developers.line.biz/en/docs/line-login/integrate-line-login/
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"

/** The ID token claims LINE sends. */
export interface LineProfile {
  iss: string
  sub: string
  aud: string
  exp: number
  iat: number
  amr?: string[]
  name?: string
  picture?: string
  email?: string
  [claim: string]: unknown
}

export default function LINE(options: OAuthUserConfig<LineProfile> = {}): OAuthConfig<LineProfile> {
  return presetWith<LineProfile>(
    {
      id: "line",
      name: "LINE",
      type: "oidc",
      issuer: "https://access.line.me",
      client: { id_token_signed_response_alg: "HS256" },
      checks: ["state"],
      profile: defaultProfile,
      style: { bg: "#06c755", text: "#fff", brandColor: "#06c755" },
    },
    options,
  )
}
