/**
 * Sealed values: session tokens, flow envelopes and flow claims as the compact JWE Auth.js v5 writes
 * (`alg: "dir"`, `enc: "A256CBC-HS512"`, `kid` the key's RFC 7638 thumbprint), read and written by jose.
 * Each key is derived from a secret and a salt with HKDF exactly as Auth.js does, once: the derived
 * keys are kept (a bounded map) and handed to jose ready.
 */
import { hkdfSync } from "node:crypto"
import type { CompactJWEHeaderParameters, JWTPayload } from "jose"
import * as errors from "jose/errors"
import { CompactEncrypt } from "jose/jwe/compact/encrypt"
import { calculateJwkThumbprint } from "jose/jwk/thumbprint"
import { jwtDecrypt } from "jose/jwt/decrypt"
import { EncryptJWT } from "jose/jwt/encrypt"
import { MissingSecret } from "../../errors.js"

/** Seconds of clock skew allowed on `exp` and `nbf`, as in Auth.js. */
export const CLOCK_TOLERANCE = 15

/** The content encryptions a sealed value may use. Auth.js writes `A256CBC-HS512`. */
export type ContentEncryption = "A256CBC-HS512" | "A256GCM"

/** A derived encryption key and its RFC 7638 thumbprint. Shared and kept: never mutate `key`. */
export interface DerivedKey {
  readonly key: Uint8Array
  readonly kid: string
  /**
   * For A256GCM, the same key imported once as a WebCrypto key that jose uses as it is (jose takes a
   * 64-byte A256CBC-HS512 key only as bytes, and imports its two halves on every call).
   */
  readonly cryptoKey?: CryptoKey
}

const DECRYPT_OPTIONS = {
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"],
  clockTolerance: CLOCK_TOLERANCE,
}

const KEPT_KEYS_MAX = 256
/** Derived keys by content encryption, secret and salt (nested: a lookup builds no string). */
const keptKeys = new Map<string, Map<string, Map<string, Promise<DerivedKey>>>>()
let keptCount = 0

/** The key length `enc` needs: 64 bytes for A256CBC-HS512, 32 for A256GCM. */
function keyLength(enc: string): 32 | 64 {
  if (enc === "A256CBC-HS512") return 64
  if (enc === "A256GCM") return 32
  throw new Error("Unsupported JWT Content Encryption Algorithm")
}

async function derive(secret: string, salt: string, length: 32 | 64): Promise<DerivedKey> {
  const key = new Uint8Array(hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, length))
  const kid = await calculateJwkThumbprint({ kty: "oct", k: Buffer.from(key).toString("base64url") }, length === 64 ? "sha512" : "sha256")
  if (length === 64) return { key, kid }
  const cryptoKey = await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["encrypt", "decrypt"])
  return { key, kid, cryptoKey }
}

/**
 * The key Auth.js derives for `enc`: HKDF-SHA256 (RFC 5869) of the secret, salted with `salt`, info
 * `Auth.js Generated Encryption Key (<salt>)`; 64 bytes for A256CBC-HS512, 32 for A256GCM. `kid` is the
 * RFC 7638 thumbprint of `{"k":…,"kty":"oct"}` with SHA-512 (64-byte key) or SHA-256 (32-byte key).
 * Derived once per (enc, secret, salt) and kept.
 *
 * @example
 * ```ts
 * const { kid } = await deriveKey(process.env.AUTH_SECRET!, "authjs.session-token", "A256CBC-HS512")
 * ```
 */
export function deriveKey(secret: string, salt: string, enc: string): Promise<DerivedKey> {
  let bySecret = keptKeys.get(enc)
  const hit = bySecret?.get(secret)?.get(salt)
  if (hit) return hit
  const length = keyLength(enc)
  if (secret.length === 0) return Promise.reject(new TypeError('"ikm" must be at least one byte in length'))
  if (keptCount >= KEPT_KEYS_MAX) {
    keptKeys.clear()
    keptCount = 0
    bySecret = undefined
  }
  const derived = derive(secret, salt, length)
  if (!bySecret) keptKeys.set(enc, (bySecret = new Map()))
  let bySalt = bySecret.get(secret)
  if (!bySalt) bySecret.set(secret, (bySalt = new Map()))
  bySalt.set(salt, derived)
  keptCount++
  // a derivation that failed is not kept
  derived.catch(() => bySalt.delete(salt))
  return derived
}

/** How many derived keys are kept (for tests: the bound holds). */
export const derivedKeysKept = (): number => keptCount

/**
 * Encrypts JWT claims into a compact JWE with protected header `{"alg":"dir","enc":…,"kid":…}` under
 * the key derived from `secret` and `salt`. The claims are written as given (no `iat`/`exp` added).
 * @example const token = await encryptJwt({ sub: "u1", exp }, newestSecret(config), "authjs.session-token")
 */
export async function encryptJwt(
  claims: JWTPayload,
  secret: string,
  salt: string,
  enc: ContentEncryption = "A256CBC-HS512",
): Promise<string> {
  const { key, kid } = await deriveKey(secret, salt, enc)
  return new EncryptJWT(claims).setProtectedHeader({ alg: "dir", enc, kid }).encrypt(key)
}

/**
 * Encrypts a JSON value that is not a claims set of its own making (a flow envelope, which only
 * authchart reads) with A256GCM under the key derived from `secret` and `salt`: its JSON text as the
 * plaintext, read back with {@link decryptJwt}.
 * @example const sealed = await encryptJson(envelope, newest, cookieName)
 */
export async function encryptJson(value: object, secret: string, salt: string): Promise<string> {
  const { key, kid, cryptoKey } = await deriveKey(secret, salt, "A256GCM")
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(value)))
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
    .encrypt(cryptoKey ?? key)
}

/**
 * Decrypts and claim-checks a sealed value with jose (`jwtDecrypt`, Auth.js' options: `dir`,
 * A256CBC-HS512 or A256GCM, 15 s clock tolerance). With a `kid`, only the secret whose key has that
 * thumbprint is used (`Error("no matching decryption secret")` when none has); without one, each secret
 * is tried in order until one's key opens it (Auth.js tried only the first). Throws jose's errors.
 *
 * @example
 * ```ts
 * const payload = await decryptJwt(token, [newSecret, oldSecret], "authjs.session-token")
 * ```
 */
export async function decryptJwt(token: string, secrets: readonly string[], salt: string): Promise<JWTPayload> {
  /** The secret a token without `kid` is tried with next. */
  let next = 0
  let keyless = false
  const keyFor = async ({ kid, enc }: CompactJWEHeaderParameters): Promise<Uint8Array | CryptoKey> => {
    if (kid === undefined) {
      keyless = true
      const secret = secrets[next]
      if (secret === undefined) throw new Error("no matching decryption secret")
      const derived = await deriveKey(secret, salt, enc)
      return derived.cryptoKey ?? derived.key
    }
    for (const secret of secrets) {
      const derived = await deriveKey(secret, salt, enc)
      if (derived.kid === kid) return derived.cryptoKey ?? derived.key
    }
    throw new Error("no matching decryption secret")
  }
  let first: { error: unknown } | undefined
  for (;;) {
    try {
      return (await jwtDecrypt(token, keyFor, DECRYPT_OPTIONS)).payload
    } catch (error) {
      first ??= { error }
      // another secret may open a token without `kid` whose tag this key did not match
      if (!keyless || !(error instanceof errors.JWEDecryptionFailed) || ++next >= secrets.length) throw first.error
    }
  }
}

/**
 * The newest secret, which encrypts and signs. Never missing at run time: without a secret every request
 * answers the `MissingSecret` configuration error first.
 * @example const key = createHmac("sha256", newestSecret(ctx.config)).update(email).digest("hex")
 */
export function newestSecret(config: { readonly secrets: readonly string[] }): string {
  const [newest] = config.secrets
  if (newest === undefined) throw new MissingSecret("No secret is configured.")
  return newest
}

interface SealContext {
  readonly now: number
  readonly config: { readonly secrets: readonly string[] }
}

/**
 * Seals `claims` for `ttlSeconds` with the newest secret under `salt`. Anyone can carry the result (a
 * URL parameter, a cookie); only this app can open it, and nobody can change it.
 * @example const state = await sealClaims(ctx, { origin: callbackUrl }, "my-flow.state", 900)
 */
export async function sealClaims(ctx: SealContext, claims: Record<string, unknown>, salt: string, ttlSeconds: number): Promise<string> {
  const iat = Math.floor(ctx.now / 1000)
  return encryptJwt({ ...claims, iat, exp: iat + ttlSeconds }, newestSecret(ctx.config), salt)
}

/**
 * Opens a value made by {@link sealClaims} with any configured secret (so rotation keeps it readable).
 * Answers `null` for anything not sealed here under `salt`, tampered with, or expired.
 * @example const claims = await openClaims(ctx, params.get("state") ?? "", "my-flow.state")
 */
export async function openClaims(ctx: SealContext, token: string, salt: string): Promise<Record<string, unknown> | null> {
  if (token.split(".").length !== 5) return null
  try {
    return await decryptJwt(token, ctx.config.secrets, salt)
  } catch {
    return null
  }
}
