/**
 * Sign in with Figma (OAuth 2).
 *
 * @example
 * ```ts
 * import Figma from "authchart/providers/figma"
 * Figma() // reads AUTH_FIGMA_ID and AUTH_FIGMA_SECRET
 * ```
 * Asks for `files:read`; sends `state` only (no PKCE).
 * @see https://www.figma.com/developers/api#oauth2
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { FigmaProfile } from "./profiles/figma.js"

export default function Figma(options: OAuthUserConfig<FigmaProfile> = {}): OAuthConfig<FigmaProfile> {
  const preset: OAuthConfig<FigmaProfile> = {
    id: "figma",
    name: "Figma",
    type: "oauth",
    authorization: { url: "https://www.figma.com/oauth", params: { scope: "files:read" } },
    token: "https://api.figma.com/v1/oauth/token",
    userinfo: "https://api.figma.com/v1/me",
    checks: ["state"],
    profile(profile) {
      return { name: profile.handle, email: profile.email, id: profile.id, image: profile.img_url }
    },
    style: { text: "#fff", bg: "#ff7237" },
  }
  return presetWith(preset, options)
}
