/**
 * Sign in with GitHub (OAuth 2), on github.com or on GitHub Enterprise Server.
 *
 * @example
 * ```ts
 * import GitHub from "authchart/providers/github"
 * GitHub() // reads AUTH_GITHUB_ID and AUTH_GITHUB_SECRET
 * GitHub({ enterprise: { baseUrl: "https://github.acme.example" } })
 * ```
 * Asks for `read:user user:email`. A user whose email is private gets their primary address from
 * `GET /user/emails`. The profile `id` is GitHub's numeric user id as a string.
 * @see https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 */
import { mergeOptions } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import type { GitHubEmail, GitHubProfile } from "./profiles/github.js"

export type { GitHubEmail, GitHubProfile } from "./profiles/github.js"

/** Options of {@link GitHub}: the usual provider options, plus `enterprise`. */
export interface GitHubOptions extends OAuthUserConfig<GitHubProfile> {
  /** GitHub Enterprise Server: its `baseUrl`, e.g. `https://github.acme.example`. */
  enterprise?: { baseUrl?: string }
}

export default function GitHub(options: GitHubOptions = {}): OAuthConfig<GitHubProfile> {
  const { enterprise, ...overrides } = options
  const baseUrl = enterprise?.baseUrl?.replace(/\/+$/, "")
  const webBase = baseUrl ?? "https://github.com"
  const apiBase = baseUrl ? `${baseUrl}/api/v3` : "https://api.github.com"
  const timeout = options.timeout ?? 10_000

  function githubGet(url: string, accessToken: string | undefined): Promise<Response> {
    return fetch(url, {
      headers: {
        Accept: "application/vnd.github+json",
        Authorization: `Bearer ${accessToken ?? ""}`,
        "User-Agent": "authchart",
      },
      signal: AbortSignal.timeout(timeout),
    })
  }

  async function primaryEmail(accessToken: string | undefined): Promise<string | null> {
    const response = await githubGet(`${apiBase}/user/emails`, accessToken)
    if (!response.ok) return null
    const body: unknown = await response.json().catch(() => null)
    if (!Array.isArray(body)) return null
    const emails = body as GitHubEmail[]
    return (emails.find((e) => e.primary) ?? emails.find((e) => e.verified))?.email ?? null
  }

  const preset: OAuthConfig<GitHubProfile> = {
    id: "github",
    name: "GitHub",
    type: "oauth",
    issuer: `${webBase}/login/oauth`,
    authorization: { url: `${webBase}/login/oauth/authorize`, params: { scope: "read:user user:email" } },
    token: `${webBase}/login/oauth/access_token`,
    userinfo: {
      url: `${apiBase}/user`,
      async request({ tokens, provider }: UserinfoRequestContext) {
        const response = await githubGet(provider.userinfo?.url ?? `${apiBase}/user`, tokens.access_token)
        if (!response.ok) {
          throw new Error("GitHub user request failed", { cause: { status: response.status } })
        }
        const profile = (await response.json()) as GitHubProfile
        if (!profile.email) profile.email = await primaryEmail(tokens.access_token)
        return profile
      },
    },
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.login,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { bg: "#24292f", text: "#fff", brandColor: "#24292f" },
  }
  return { ...mergeOptions(preset, overrides), options }
}
