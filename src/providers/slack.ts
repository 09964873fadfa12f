/**
 * Sign in with Slack (OpenID Connect).
 *
 * @example
 * ```ts
 * import Slack from "authchart/providers/slack"
 * Slack() // reads AUTH_SLACK_ID and AUTH_SLACK_SECRET
 * ```
 * Endpoints come from `https://slack.com/.well-known/openid-configuration`. Slack puts a `nonce`
 * claim in every ID token, which authchart's default OIDC `nonce` check matches.
 * @see https://api.slack.com/authentication/sign-in-with-slack
 */
import { defaultProfile, presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { SlackProfile } from "./profiles/slack.js"

export type { SlackProfile } from "./profiles/slack.js"

export default function Slack(options: OAuthUserConfig<SlackProfile> = {}): OIDCConfig<SlackProfile> {
  const preset: OIDCConfig<SlackProfile> = {
    id: "slack",
    name: "Slack",
    type: "oidc",
    issuer: "https://slack.com",
    profile: defaultProfile,
    style: { bg: "#000", text: "#fff", brandColor: "#4a154b" },
  }
  return presetWith(preset, options)
}
