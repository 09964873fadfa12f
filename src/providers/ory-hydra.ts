/**
 * Sign in with Ory Hydra (OpenID Connect).
 *
 * @example
 * ```ts
 * import OryHydra from "authchart/providers/ory-hydra"
 * OryHydra({ issuer: "https://hydra.acme.example" }) // or set AUTH_HYDRA_ISSUER, with AUTH_HYDRA_ID and _SECRET
 * ```
 * Its provider id is `hydra` (routes `/auth/signin/hydra`, `/auth/callback/hydra`), as in Auth.js.
 * @see https://www.ory.sh/docs/hydra/
 */
import { presetWith } from "./oauth.js"
import type { OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import type { OryHydraProfile } from "./profiles/ory-hydra.js"

export type { OryHydraProfile } from "./profiles/ory-hydra.js"

export default function OryHydra(options: OAuthUserConfig<OryHydraProfile> = {}): OIDCConfig<OryHydraProfile> {
  const preset: OIDCConfig<OryHydraProfile> = {
    id: "hydra",
    name: "Hydra",
    type: "oidc",
    style: { bg: "#fff", text: "#0F172A" },
  }
  return presetWith(preset, options)
}
