/**
 * Sign in with Hugging Face (OpenID Connect).
 *
 * @example
 * ```ts
 * import Huggingface from "authchart/providers/huggingface"
 * Huggingface() // reads AUTH_HUGGINGFACE_ID and AUTH_HUGGINGFACE_SECRET
 * ```
 * Sends `state` and PKCE, no nonce.
 * @see https://huggingface.co/docs/hub/oauth
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { HuggingfaceProfile } from "./profiles/huggingface.js"

export type { HuggingfaceProfile } from "./profiles/huggingface.js"

export default function Huggingface(options: OAuthUserConfig<HuggingfaceProfile> = {}): OIDCConfig<HuggingfaceProfile> {
  const preset: OIDCConfig<HuggingfaceProfile> = {
    id: "huggingface",
    name: "Hugging Face",
    type: "oidc",
    issuer: "https://huggingface.co",
    checks: ["state", "pkce"],
    style: { bg: "#FFD21E", text: "#000" },
  }
  return presetWith(preset, options)
}
