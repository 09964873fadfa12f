/**
 * Sign in with Microsoft Entra ID (formerly Azure AD), OpenID Connect.
 *
 * @example
 * ```ts
 * import MicrosoftEntraID from "authchart/providers/microsoft-entra-id"
 * MicrosoftEntraID() // any Microsoft account, work, school or personal
 * MicrosoftEntraID({ issuer: "https://login.microsoftonline.com/<tenant id>/v2.0" }) // one tenant
 * ```
 * Asks for `openid profile email User.Read`, and reads the user's photo from Microsoft Graph as a
 * `data:` URL (48×48 by default, to keep JWT sessions small). No photo, or a failed request, gives
 * `image: null`.
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 */
import { mergeOptions } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { MicrosoftEntraIDProfile } from "./profiles/microsoft-entra-id.js"

export type { MicrosoftEntraIDProfile } from "./profiles/microsoft-entra-id.js"

/** The square photo sizes Microsoft Graph serves. */
export type ProfilePhotoSize = 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648

/** Options of {@link MicrosoftEntraID}: the usual provider options, plus `profilePhotoSize`. */
export interface MicrosoftEntraIDOptions extends OAuthUserConfig<MicrosoftEntraIDProfile> {
  /** Edge of the profile photo, in pixels. Default 48. */
  profilePhotoSize?: ProfilePhotoSize
}

export default function MicrosoftEntraID(options: MicrosoftEntraIDOptions = {}): OIDCConfig<MicrosoftEntraIDProfile> {
  const { profilePhotoSize = 48, ...overrides } = options
  const timeout = options.timeout ?? 10_000
  const preset: OIDCConfig<MicrosoftEntraIDProfile> = {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: "https://login.microsoftonline.com/common/v2.0",
    authorization: { params: { scope: "openid profile email User.Read" } },
    async profile(profile, tokens) {
      return {
        id: String(profile.sub),
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: await graphPhoto(tokens.access_token, profilePhotoSize, timeout),
      }
    },
    style: { bg: "#0072c6", text: "#fff", brandColor: "#0072c6" },
  }
  return { ...mergeOptions(preset, overrides), options }
}

async function graphPhoto(accessToken: string | undefined, size: ProfilePhotoSize, timeout: number) {
  if (!accessToken) return null
  try {
    const response = await fetch(`https://graph.microsoft.com/v1.0/me/photos/${size}x${size}/$value`, {
      headers: { Authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(timeout),
    })
    if (!response.ok) return null
    const type = response.headers.get("content-type")?.split(";")[0]?.trim() || "image/jpeg"
    const base64 = Buffer.from(await response.arrayBuffer()).toString("base64")
    return `data:${type};base64,${base64}`
  } catch {
    return null
  }
}
