/**
 * Sign in with Dribbble (OAuth 2).
 *
 * @example
 * ```ts
 * import Dribbble from "authchart/providers/dribbble"
 * Dribbble({ scope: "public upload" }) // reads AUTH_DRIBBBLE_ID and AUTH_DRIBBBLE_SECRET
 * ```
 * `scope` is Dribbble's (`public`, `upload`); without it Dribbble grants `public`.
 * @see https://developer.dribbble.com/v2/oauth/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { DribbbleProfile } from "./profiles/dribbble.js"

export type { DribbbleProfile } from "./profiles/dribbble.js"

/** Options of {@link Dribbble}: the usual provider options, plus the scope to ask for. */
export type DribbbleOptions<P extends DribbbleProfile = DribbbleProfile> = OAuthUserConfig<P> & { scope?: "public" | "public upload" }

export default function Dribbble<P extends DribbbleProfile = DribbbleProfile>(options: DribbbleOptions<P> = {}): OAuthConfig<P> {
  const preset: OAuthConfig<P> = {
    id: "dribbble",
    name: "Dribbble",
    type: "oauth",
    authorization: { url: "https://dribbble.com/oauth/authorize", params: { scope: options.scope } },
    token: "https://dribbble.com/oauth/token",
    userinfo: "https://api.dribbble.com/v2/user",
    profile(profile) {
      return { id: profile.id.toString(), name: profile.name, email: profile.email, image: profile.avatar_url }
    },
    style: { text: "#fff", bg: "#000" },
  }
  return presetWith(preset, options)
}
