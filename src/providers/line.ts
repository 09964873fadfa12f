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
import type { LineProfile } from "./profiles/line.js"

export type { LineProfile } from "./profiles/line.js"

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
