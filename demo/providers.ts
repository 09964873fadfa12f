/**
 * The demo's sign-in options that come from the environment: each real provider preset is enabled when
 * `AUTH_<ID>_ID` is set, its credentials read from the `env` given (not from `process.env` behind it).
 */
import Apple from "../src/providers/apple.js"
import Auth0 from "../src/providers/auth0.js"
import Discord from "../src/providers/discord.js"
import Facebook from "../src/providers/facebook.js"
import GitHub from "../src/providers/github.js"
import GitLab from "../src/providers/gitlab.js"
import Google from "../src/providers/google.js"
import Keycloak from "../src/providers/keycloak.js"
import LinkedIn from "../src/providers/linkedin.js"
import MicrosoftEntraID from "../src/providers/microsoft-entra-id.js"
import type { OAuthUserConfig } from "../src/providers/oauth-types.js"
import Okta from "../src/providers/okta.js"
import Slack from "../src/providers/slack.js"
import Spotify from "../src/providers/spotify.js"
import Twitch from "../src/providers/twitch.js"
import Twitter from "../src/providers/twitter.js"
import type { Provider } from "../src/types.js"

/** Environment variables, as in `process.env`. */
export type DemoEnv = Readonly<Record<string, string | undefined>>

/**
 * The real providers the demo knows: each is enabled when `AUTH_<ID>_ID` is set (id upper-cased, `-` → `_`),
 * with `AUTH_<ID>_SECRET` and, where the provider has no fixed issuer, `AUTH_<ID>_ISSUER`.
 */
type EnvCredentials = Pick<OAuthUserConfig, "clientId" | "clientSecret" | "issuer">
export const PRESETS: Readonly<Record<string, { make: (options: EnvCredentials) => Provider; needsIssuer?: true }>> = {
  github: { make: GitHub },
  google: { make: Google },
  discord: { make: Discord },
  gitlab: { make: GitLab },
  auth0: { make: Auth0, needsIssuer: true },
  keycloak: { make: Keycloak, needsIssuer: true },
  okta: { make: Okta, needsIssuer: true },
  "microsoft-entra-id": { make: MicrosoftEntraID },
  facebook: { make: Facebook },
  twitter: { make: Twitter },
  linkedin: { make: LinkedIn },
  slack: { make: Slack },
  twitch: { make: Twitch },
  spotify: { make: Spotify },
  apple: { make: Apple },
}

export const KNOWN_PRESETS: readonly string[] = Object.freeze(Object.keys(PRESETS))

const envKey = (id: string): string => `AUTH_${id.toUpperCase().replace(/-/g, "_")}`

/** One sign-in option of the demo, as the home page and the start-up lines show it. */
export interface DemoSignInOption {
  id: string
  name: string
  /** How to use it, in a few words. */
  hint: string
}

/** The real providers enabled by `AUTH_<ID>_*` in `env`, with their credentials taken from `env` itself. */
export function providersFromEnv(env: DemoEnv): { providers: Provider[]; options: DemoSignInOption[]; skipped: string[] } {
  const providers: Provider[] = []
  const options: DemoSignInOption[] = []
  const skipped: string[] = []
  for (const [id, preset] of Object.entries(PRESETS)) {
    const key = envKey(id)
    const clientId = env[`${key}_ID`]
    if (!clientId) continue
    const clientSecret = env[`${key}_SECRET`]
    const issuer = env[`${key}_ISSUER`]
    if (preset.needsIssuer && !issuer) {
      skipped.push(`${id}: ${key}_ID is set but ${key}_ISSUER is not`)
      continue
    }
    // passed explicitly (not left to the runtime's process.env lookup), so `env` is the one source
    const provider = preset.make({ clientId, ...(clientSecret ? { clientSecret } : {}), ...(issuer ? { issuer } : {}) })
    const name = typeof provider === "function" ? id : (provider.name ?? id)
    providers.push(provider)
    options.push({ id, name, hint: `a real account (${key}_ID)` })
  }
  return { providers, options, skipped }
}
