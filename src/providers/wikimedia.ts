/**
 * Sign in with Wikimedia (OAuth 2).
 *
 * @example
 * ```ts
 * import Wikimedia from "authchart/providers/wikimedia"
 * Wikimedia() // reads AUTH_WIKIMEDIA_ID and AUTH_WIKIMEDIA_SECRET
 * ```
 * Signs in with a Wikimedia account (Wikipedia, Wikidata, …) on Meta-Wiki.
 * @see https://www.mediawiki.org/wiki/Extension:OAuth
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { WikimediaProfile } from "./profiles/wikimedia.js"

export type { WikimediaGroup, WikimediaGrant, WikimediaRight, WikimediaProfile } from "./profiles/wikimedia.js"

export default function Wikimedia(options: OAuthUserConfig<WikimediaProfile> = {}): OAuthConfig<WikimediaProfile> {
  const preset: OAuthConfig<WikimediaProfile> = {
    id: "wikimedia",
    name: "Wikimedia",
    type: "oauth",
    token: "https://meta.wikimedia.org/w/rest.php/oauth2/access_token",
    userinfo: "https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile",
    authorization: "https://meta.wikimedia.org/w/rest.php/oauth2/authorize?scope=",
    profile(profile) {
      return { id: profile.sub, name: profile.username, email: profile.email, image: null }
    },
    style: { bg: "#000", text: "#fff" },
  }
  return presetWith(preset, options)
}
