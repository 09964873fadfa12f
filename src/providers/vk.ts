/**
 * Sign in with VK (OAuth 2).
 *
 * @example
 * ```ts
 * import VK from "authchart/providers/vk"
 * VK() // reads AUTH_VK_ID and AUTH_VK_SECRET
 * ```
 * Asks for `email`, API version 5.131. VK returns the email address in the token response, not in
 * the profile; the preset puts it on the profile.
 * @see https://dev.vk.com/en/api/access-token/authcode-flow-user
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig, UserinfoRequestContext } from "./oauth-types.js"
import { requestJson } from "./userinfo-request.js"
import type { VkProfile } from "./profiles/vk.js"

export type { VkProfile } from "./profiles/vk.js"

/** The VK API version the endpoints ask for. */
export const VK_API_VERSION = "5.131"

async function currentUser({ tokens, provider }: UserinfoRequestContext, timeout: number | undefined): Promise<VkProfile> {
  const body = await requestJson(provider.userinfo?.url ?? "", { accessToken: tokens.access_token, timeout })
  const [user] = (body.response as VkProfile[] | undefined) ?? []
  if (!user) throw new Error("VK returned no user", { cause: { error: body.error } })
  return { ...user, email: typeof tokens.email === "string" && tokens.email !== "" ? tokens.email : undefined }
}

export default function VK(options: OAuthUserConfig<VkProfile> = {}): OAuthConfig<VkProfile> {
  return presetWith<VkProfile>(
    {
      id: "vk",
      name: "VK",
      type: "oauth",
      authorization: `https://oauth.vk.com/authorize?scope=email&v=${VK_API_VERSION}`,
      client: { token_endpoint_auth_method: "client_secret_post" },
      token: `https://oauth.vk.com/access_token?v=${VK_API_VERSION}`,
      userinfo: {
        url: `https://api.vk.com/method/users.get?fields=photo_100&v=${VK_API_VERSION}`,
        request: (context: UserinfoRequestContext) => currentUser(context, options.timeout),
      },
      profile: (profile) => ({
        id: String(profile.id),
        name: [profile.first_name, profile.last_name].filter(Boolean).join(" "),
        email: profile.email ?? null,
        image: profile.photo_100,
      }),
      style: { bg: "#0077ff", text: "#fff", brandColor: "#0077ff" },
    },
    options,
  )
}
