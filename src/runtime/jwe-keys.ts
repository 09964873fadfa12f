/**
 * The session token's keys: derived from a secret and a salt with HKDF exactly as Auth.js does, with
 * their RFC 7638 thumbprints (`kid`), cached (a bounded map; a lookup builds no string).
 */
import { createHash, hkdfSync } from "node:crypto"

/** The content encryptions a session token may use. Auth.js writes `A256CBC-HS512`. */
export type ContentEncryption = "A256CBC-HS512" | "A256GCM"

/** A derived encryption key and its RFC 7638 thumbprint. Shared and cached: never mutate `key`. */
export interface DerivedKey {
  readonly key: Buffer
  readonly kid: string
}

const CACHE_LIMIT = 256
/** Derived keys by content encryption, secret and salt (nested: a lookup builds no string). */
const keyCache = new Map<ContentEncryption, Map<string, Map<string, DerivedKey>>>()
let cachedKeys = 0

/** The key length `enc` needs: 64 bytes for A256CBC-HS512, 32 for A256GCM. */
export function keyLength(enc: string): 32 | 64 {
  if (enc === "A256CBC-HS512") return 64
  if (enc === "A256GCM") return 32
  throw new Error("Unsupported JWT Content Encryption Algorithm")
}

/**
 * The key Auth.js derives for `enc`: HKDF-SHA256 (RFC 5869) of the secret, salted with `salt`, info
 * `Auth.js Generated Encryption Key (<salt>)`; 64 bytes for A256CBC-HS512, 32 for A256GCM. `kid` is the
 * RFC 7638 thumbprint of `{"k":…,"kty":"oct"}` with SHA-512 (64-byte key) or SHA-256 (32-byte key).
 *
 * @example
 * ```ts
 * const { kid } = deriveKey(process.env.AUTH_SECRET!, "authjs.session-token", "A256CBC-HS512")
 * ```
 */
export function deriveKey(secret: string, salt: string, enc: ContentEncryption): DerivedKey {
  const hit = keyCache.get(enc)?.get(secret)?.get(salt)
  if (hit) return hit
  const length = keyLength(enc)
  if (secret.length === 0) throw new TypeError('"ikm" must be at least one byte in length')
  const info = `Auth.js Generated Encryption Key (${salt})`
  const key = Buffer.from(hkdfSync("sha256", secret, salt, info, length))
  const jwk = `{"k":"${key.toString("base64url")}","kty":"oct"}`
  const kid = createHash(length === 64 ? "sha512" : "sha256")
    .update(jwk)
    .digest("base64url")
  if (cachedKeys >= CACHE_LIMIT) {
    keyCache.clear()
    cachedKeys = 0
  }
  const derived: DerivedKey = { key, kid }
  let bySecret = keyCache.get(enc)
  if (!bySecret) keyCache.set(enc, (bySecret = new Map()))
  let bySalt = bySecret.get(secret)
  if (!bySalt) bySecret.set(secret, (bySalt = new Map()))
  bySalt.set(salt, derived)
  cachedKeys++
  return derived
}
