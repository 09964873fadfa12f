/**
 * Sign in with a Mastodon server (OAuth 2).
 *
 * @example
 * ```ts
 * import Mastodon from "authchart/providers/mastodon"
 * Mastodon({ issuer: "https://mastodon.social" }) // or AUTH_MASTODON_ISSUER, with AUTH_MASTODON_ID/_SECRET
 * ```
 * `issuer` is the server's URL; the endpoints are built from it, so without it the config is an
 * `InvalidEndpoints` error. Asks for `read`. Mastodon shares no email address, so `email` is null.
 * @see https://docs.joinmastodon.org/spec/oauth/
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { MastodonProfile } from "./profiles/mastodon.js"

export type { MastodonProfile } from "./profiles/mastodon.js"

export default function Mastodon(options: OAuthUserConfig<MastodonProfile> = {}): OAuthConfig<MastodonProfile> {
  const server = options.issuer?.replace(/\/+$/, "")
  return presetWith<MastodonProfile>(
    {
      id: "mastodon",
      name: "Mastodon",
      type: "oauth",
      authorization: `${server}/oauth/authorize?scope=read`,
      token: `${server}/oauth/token`,
      userinfo: `${server}/api/v1/accounts/verify_credentials`,
      profile: (profile) => ({
        id: String(profile.id),
        name: profile.username,
        email: null,
        image: profile.avatar_static ?? null,
      }),
      style: { bg: "#563acc", text: "#fff", brandColor: "#6364ff" },
    },
    options,
  )
}
