/**
 * Sign in with Discord (OAuth 2).
 *
 * @example
 * ```ts
 * import Discord from "authchart/providers/discord"
 * Discord() // reads AUTH_DISCORD_ID and AUTH_DISCORD_SECRET
 * ```
 * Asks for `identify email`. The image is the user's avatar on Discord's CDN, or the default avatar
 * Discord shows for them.
 * @see https://discord.com/developers/docs/topics/oauth2
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { DiscordProfile } from "./profiles/discord.js"

export type { DiscordProfile } from "./profiles/discord.js"

export default function Discord(options: OAuthUserConfig<DiscordProfile> = {}): OAuthConfig<DiscordProfile> {
  const preset: OAuthConfig<DiscordProfile> = {
    id: "discord",
    name: "Discord",
    type: "oauth",
    authorization: { url: "https://discord.com/api/oauth2/authorize", params: { scope: "identify email" } },
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.global_name ?? profile.username,
        email: profile.email ?? null,
        image: discordAvatarUrl(profile),
      }
    },
    style: { bg: "#5865F2", text: "#fff", brandColor: "#5865F2" },
  }
  return presetWith(preset, options)
}

/**
 * The URL of a user's avatar, or of the default avatar Discord gives them.
 *
 * @example
 * ```ts
 * discordAvatarUrl({ id: "80351110224678912", avatar: null, discriminator: "1337" })
 * // → "https://cdn.discordapp.com/embed/avatars/2.png"
 * ```
 * @see https://discord.com/developers/docs/reference#image-formatting
 */
export function discordAvatarUrl(user: Pick<DiscordProfile, "id" | "avatar" | "discriminator">): string {
  if (user.avatar) {
    const format = user.avatar.startsWith("a_") ? "gif" : "png"
    return `https://cdn.discordapp.com/avatars/${user.id}/${user.avatar}.${format}`
  }
  const index = user.discriminator === "0" ? Number((BigInt(user.id) >> 22n) % 6n) : Number(user.discriminator) % 5
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`
}
