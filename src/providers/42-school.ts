/**
 * Sign in with 42 School (OAuth 2).
 *
 * @example
 * ```ts
 * import FortyTwo from "authchart/providers/42-school"
 * FortyTwo() // reads AUTH_42_SCHOOL_ID and AUTH_42_SCHOOL_SECRET
 * ```
 * Asks for `public`. The name is the user's usual full name.
 * @see https://api.intra.42.fr/apidoc/guides/web_application_flow
 */
import { presetWith } from "./oauth.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth-types.js"
import type { FortyTwoProfile } from "./profiles/42-school.js"

export type {
  UserData,
  CursusUser,
  ProjectUser,
  Achievement,
  LanguagesUser,
  TitlesUser,
  ExpertisesUser,
  Campus,
  CampusUser,
  Image,
  FortyTwoProfile,
} from "./profiles/42-school.js"

export default function FortyTwo(options: OAuthUserConfig<FortyTwoProfile> = {}): OAuthConfig<FortyTwoProfile> {
  const preset: OAuthConfig<FortyTwoProfile> = {
    id: "42-school",
    name: "42 School",
    type: "oauth",
    authorization: { url: "https://api.intra.42.fr/oauth/authorize", params: { scope: "public" } },
    token: "https://api.intra.42.fr/oauth/token",
    userinfo: "https://api.intra.42.fr/v2/me",
    profile(profile) {
      return { id: profile.id.toString(), name: profile.usual_full_name, email: profile.email, image: profile.image.link }
    },
  }
  return presetWith(preset, options)
}
