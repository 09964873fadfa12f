/**
 * Sign in with enterprise single sign-on through WorkOS (OAuth 2).
 *
 * @example
 * ```ts
 * import WorkOS from "authchart/providers/workos"
 * WorkOS({ connection: "conn_01E4ZCR3C56J083X43JQXF3JK5" }) // reads AUTH_WORKOS_ID and AUTH_WORKOS_SECRET
 * ```
 * `connection` picks the organisation's SSO connection (or pass `organization` / `provider` as an
 * authorization parameter at sign-in). `issuer` defaults to `https://api.workos.com/` and must end in
 * `/`. The client authenticates with `client_secret_post`.
 * @see https://workos.com/docs/sso
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { WorkOSProfile } from "./profiles/workos.js"

export type { WorkOSProfile } from "./profiles/workos.js"

/** Options of {@link WorkOS}: the usual provider options, plus the SSO connection. */
export type WorkOSOptions<P extends WorkOSProfile = WorkOSProfile> = OAuthUserConfig<P> & { connection?: string }

export default function WorkOS<P extends WorkOSProfile = WorkOSProfile>(options: WorkOSOptions<P> = {}): OAuthConfig<P> {
  const { issuer = "https://api.workos.com/", connection = "" } = options
  const preset: OAuthConfig<P> = {
    id: "workos",
    name: "WorkOS",
    type: "oauth",
    authorization: `${issuer}sso/authorize?${new URLSearchParams({ connection })}`,
    token: `${issuer}sso/token`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    userinfo: `${issuer}sso/profile`,
    profile(profile) {
      return {
        id: profile.id,
        name: `${profile.first_name} ${profile.last_name}`,
        email: profile.email,
        image: profile.raw_attributes.picture ?? null,
      }
    },
    style: { bg: "#6363f1", text: "#fff" },
  }
  return presetWith(preset, options)
}
