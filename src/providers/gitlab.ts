/**
 * Sign in with GitLab (OAuth 2), on gitlab.com or a self-managed instance.
 *
 * @example
 * ```ts
 * import GitLab from "authchart/providers/gitlab"
 * GitLab() // reads AUTH_GITLAB_ID and AUTH_GITLAB_SECRET
 * GitLab({ baseUrl: "https://gitlab.acme.example" })
 * ```
 * Asks for `read_user`. The profile `id` is GitLab's numeric user id as a string.
 * @see https://docs.gitlab.com/ee/api/oauth2.html
 */
import { mergeOptions } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { GitLabProfile } from "./profiles/gitlab.js"

export type { GitLabProfile } from "./profiles/gitlab.js"

/** Options of {@link GitLab}: the usual provider options, plus `baseUrl`. */
export interface GitLabOptions extends OAuthUserConfig<GitLabProfile> {
  /** A self-managed GitLab: its base URL. Default `https://gitlab.com`. */
  baseUrl?: string
}

export default function GitLab(options: GitLabOptions = {}): OAuthConfig<GitLabProfile> {
  const { baseUrl: base, ...overrides } = options
  const baseUrl = (base ?? "https://gitlab.com").replace(/\/+$/, "")
  const preset: OAuthConfig<GitLabProfile> = {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: `${baseUrl}/oauth/authorize?scope=read_user`,
    token: `${baseUrl}/oauth/token`,
    userinfo: `${baseUrl}/api/v4/user`,
    profile(profile) {
      return {
        id: String(profile.sub ?? profile.id),
        name: profile.name ?? profile.username,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { bg: "#fc6d26", text: "#fff", brandColor: "#fc6d26" },
  }
  return { ...mergeOptions(preset, overrides), options }
}
