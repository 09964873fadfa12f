/**
 * Sign in with Notion (OAuth 2, public integrations).
 *
 * @example
 * ```ts
 * import Notion from "authchart/providers/notion"
 * Notion() // reads AUTH_NOTION_ID and AUTH_NOTION_SECRET
 * ```
 * The user is the integration's owner from `GET /v1/users/me` (`bot.owner.user`); the email comes
 * with the integration's "Read user information including email addresses" capability.
 * @see https://developers.notion.com/docs/authorization
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import { requestJson } from "./userinfo-request.js"
import type { NotionProfile, User } from "./profiles/notion.js"

export type { Person, User, Owner, NotionProfile } from "./profiles/notion.js"

const API = "https://api.notion.com"
/** The Notion API version the userinfo request asks for. */
export const NOTION_API_VERSION = "2022-06-28"

async function owner({ tokens }: UserinfoRequestContext, timeout: number | undefined): Promise<NotionProfile> {
  const me = await requestJson(`${API}/v1/users/me`, {
    accessToken: tokens.access_token,
    headers: { "Notion-Version": NOTION_API_VERSION },
    timeout,
  })
  const user = (me.bot as { owner?: { user?: NotionProfile } } | undefined)?.owner?.user
  if (!user) throw new Error("Notion returned no owner user for this integration")
  return user
}

export default function Notion(options: OAuthUserConfig<NotionProfile> = {}): OAuthConfig<NotionProfile> {
  return presetWith<NotionProfile>(
    {
      id: "notion",
      name: "Notion",
      type: "oauth",
      authorization: { url: `${API}/v1/oauth/authorize`, params: { client_id: options.clientId, response_type: "code", owner: "user" } },
      token: { url: `${API}/v1/oauth/token` },
      userinfo: { url: `${API}/v1/users`, request: (context: UserinfoRequestContext) => owner(context, options.timeout) },
      // Auth.js types the profile as the token answer; what reaches profile() is the owner user
      profile: (profile: NotionProfile & User) => ({
        id: String(profile.id),
        name: profile.name,
        email: profile.person?.email,
        image: profile.avatar_url,
      }),
      style: { bg: "#fff", text: "#000", brandColor: "#000" },
    },
    options,
  )
}
