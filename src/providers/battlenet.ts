/**
 * Sign in with Battle.net (OpenID Connect).
 *
 * @example
 * ```ts
 * import BattleNet from "authchart/providers/battlenet"
 * BattleNet({ issuer: "https://oauth.battle.net" }) // or set AUTH_BATTLENET_ISSUER
 * ```
 * The issuer is one of Battle.net's regions (`BattleNetIssuer`). The user's name is their BattleTag;
 * Battle.net shares no email address.
 * @see https://develop.battle.net/documentation/guides/using-oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { BattleNetProfile } from "./profiles/battlenet.js"

export type { BattleNetProfile, BattleNetIssuer } from "./profiles/battlenet.js"

export default function BattleNet(options: OAuthUserConfig<BattleNetProfile> = {}): OIDCConfig<BattleNetProfile> {
  const preset: OIDCConfig<BattleNetProfile> = {
    id: "battlenet",
    name: "Battle.net",
    type: "oidc",
    profile(profile) {
      return { id: profile.sub, name: profile.battle_tag, email: null, image: null }
    },
    style: { bg: "#148eff", text: "#fff" },
  }
  return presetWith(preset, options)
}
