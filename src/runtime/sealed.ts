/**
 * Sealed values for flows: claims encrypted and authenticated with the config's secrets (JWE `dir` +
 * `A256CBC-HS512`, the session token's format), under a salt of the flow's own, with an expiry.
 */
import { decryptJwt, deriveKey, encryptJwt, newestSecret } from "./jwe.js"

interface SealContext {
  readonly now: number
  readonly config: { readonly secrets: readonly string[] }
}

/**
 * Seals `claims` for `ttlSeconds` with the newest secret under `salt`. Anyone can carry the result (a
 * URL parameter, a cookie); only this app can open it, and nobody can change it.
 * @example const state = sealClaims(ctx, { origin: callbackUrl }, "my-flow.state", 900)
 */
export function sealClaims(ctx: SealContext, claims: Record<string, unknown>, salt: string, ttlSeconds: number): string {
  const iat = Math.floor(ctx.now / 1000)
  return encryptJwt({ ...claims, iat, exp: iat + ttlSeconds }, deriveKey(newestSecret(ctx.config), salt, "A256CBC-HS512"))
}

/**
 * Opens a value made by {@link sealClaims} with any configured secret (so rotation keeps it readable).
 * Answers `null` for anything not sealed here under `salt`, tampered with, or expired.
 * @example const claims = openClaims(ctx, params.get("state") ?? "", "my-flow.state")
 */
export function openClaims(ctx: SealContext, token: string, salt: string): Record<string, unknown> | null {
  if (token.split(".").length !== 5) return null
  try {
    return decryptJwt(token, ctx.config.secrets, salt).payload
  } catch {
    return null
  }
}
