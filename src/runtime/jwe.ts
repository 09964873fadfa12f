/**
 * Session-token crypto: the compact JWE (`alg: "dir"`) that Auth.js v5 writes, on `node:crypto`,
 * synchronous. Keys are derived with HKDF exactly as Auth.js does, so tokens move both ways.
 *
 * The fast path handles the headers Auth.js and authchart produce (`alg`, `enc`, optional `kid`) and
 * accepts exactly what `jose.jwtDecrypt` accepts with Auth.js' options; anything unusual (extra header
 * members, padding or whitespace in a part) goes to `jose` itself through {@link decryptJwtAsync}.
 */
import { createCipheriv, createDecipheriv } from "node:crypto"
import type { CompactJWEHeaderParameters } from "jose"
// jose's subpaths, not its index (which loads all of jose: about 1 MB of RSS); its decrypt on first use
import * as errors from "jose/errors"
import { type ContentEncryption, type DerivedKey, deriveKey, keyLength } from "./jwe-keys.js"
import { randomBytes } from "./random.js"
import { CbcDecryptionFailed, decodedLength, openCbc, sealCbc } from "./jwe-cbc.js"
import {
  CANONICAL_TOKEN,
  NO_BYTES,
  NeedsSlowPath,
  type OpenedHeader,
  type SealedParts,
  aadLength,
  checkLength,
  checkPart,
  decodePart,
  invalid,
  isJsonObject,
  openedHeader,
  keptHeader,
  strictUtf8,
} from "./jwe-compact.js"
import { MissingSecret } from "../errors.js"

export { type ContentEncryption, type DerivedKey, deriveKey } from "./jwe-keys.js"
export { NeedsSlowPath, keptHeaders } from "./jwe-compact.js"

/** A decrypted, claim-checked token. */
export interface DecryptedJwt {
  payload: Record<string, unknown>
  /** The decrypted JSON text (for tokens outside the fast path: the JSON of `payload`). */
  plaintext: string
}

/** Seconds of clock skew allowed on `exp` and `nbf`, as in Auth.js. */
export const CLOCK_TOLERANCE = 15

const JOSE_OPTIONS = {
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"],
  clockTolerance: CLOCK_TOLERANCE,
}

/** What sealing under one key and encryption reuses: the encoded header, its bytes (AAD) and AL. */
interface Sealing {
  readonly header: string
  readonly aad: Buffer
  readonly al: Buffer
}

const sealings = new WeakMap<DerivedKey, Partial<Record<ContentEncryption, Sealing>>>()

/** The protected header of a key and what sealing under it reuses, made once per derived key. */
function sealingFor(keys: DerivedKey, enc: ContentEncryption): Sealing {
  let byEnc = sealings.get(keys)
  if (!byEnc) sealings.set(keys, (byEnc = {}))
  let made = byEnc[enc]
  if (!made) {
    const header = Buffer.from(JSON.stringify({ alg: "dir", enc, kid: keys.kid })).toString("base64url")
    const aad = Buffer.from(header, "latin1")
    made = byEnc[enc] = { header, aad, al: aadLength(aad) }
  }
  return made
}

/**
 * Encrypts `payload` (as JSON) into a compact JWE with protected header
 * `{"alg":"dir","enc":…,"kid":…}` and an empty encrypted-key part (RFC 7516 §7.1, RFC 7518 §5.2.2).
 *
 * @example
 * ```ts
 * const token = encryptJwt({ sub: "u1" }, deriveKey(secret, "authjs.session-token", "A256CBC-HS512"))
 * ```
 */
export function encryptJwt(payload: object, keys: DerivedKey, enc: ContentEncryption = "A256CBC-HS512"): string {
  if (keys.key.length !== keyLength(enc)) throw new TypeError(`key length does not fit ${enc}`)
  const { header, aad, al } = sealingFor(keys, enc)
  if (enc === "A256CBC-HS512") return `${header}..${sealCbc(keys.key, aad, al, JSON.stringify(payload))}`
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", keys.key, iv, { authTagLength: 16 })
  cipher.setAAD(aad)
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final()])
  return `${header}..${iv.toString("base64url")}.${ciphertext.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`
}

/**
 * The plaintext under the key the header names (its `kid`), or under the first of `secrets` whose key
 * opens it (no `kid`); undefined when none does. Throws when no secret can be tried.
 */
function openWithSecrets(header: OpenedHeader, secrets: readonly string[], salt: string, sealed: SealedParts): Buffer | undefined {
  if (header.kid !== undefined) {
    for (const secret of secrets) {
      const derived = deriveKey(secret, salt, header.enc)
      if (derived.kid === header.kid) return openUnder(derived.key, header, sealed)
    }
    throw new Error("no matching decryption secret")
  }
  if (secrets.length === 0) throw new Error("no matching decryption secret")
  for (const secret of secrets) {
    const plaintext = openUnder(deriveKey(secret, salt, header.enc).key, header, sealed)
    if (plaintext) return plaintext
  }
  return undefined
}

/** The plaintext under one key, undefined when the tag is not that key's. */
function openUnder(key: Buffer, header: OpenedHeader, { iv, ciphertext, tag }: SealedParts): Buffer | undefined {
  if (header.enc === "A256CBC-HS512") {
    try {
      return openCbc(key, header.aad, header.al, iv, ciphertext, tag)
    } catch (error) {
      if (error instanceof CbcDecryptionFailed) throw new errors.JWEDecryptionFailed()
      throw error
    }
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: 16 })
    decipher.setAAD(header.aad)
    decipher.setAuthTag(Buffer.from(tag, "base64url"))
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()])
  } catch {
    return undefined
  }
}

/** A time claim that is present must be a number (jose's check, in its order: iat, nbf, exp). */
function numericClaim(payload: Record<string, unknown>, claim: "iat" | "nbf" | "exp", value: unknown): void {
  if (value !== undefined && typeof value !== "number") {
    throw new errors.JWTClaimValidationFailed(`"${claim}" claim must be a number`, payload, claim, "invalid")
  }
}

/** The claim checks `jose.jwtDecrypt` makes with `clockTolerance: 15` and no other claim options. */
function checkClaims(bytes: Uint8Array): DecryptedJwt {
  let plaintext: string
  let payload: unknown
  try {
    plaintext = strictUtf8.decode(bytes)
    payload = JSON.parse(plaintext)
  } catch (cause) {
    throw new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause })
  }
  if (!isJsonObject(payload)) throw new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object")
  const now = Math.floor(Date.now() / 1000)
  const { iat, nbf, exp } = payload
  numericClaim(payload, "iat", iat)
  numericClaim(payload, "nbf", nbf)
  numericClaim(payload, "exp", exp)
  if (typeof nbf === "number" && nbf > now + CLOCK_TOLERANCE) {
    throw new errors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', payload, "nbf", "check_failed")
  }
  if (typeof exp === "number" && exp <= now - CLOCK_TOLERANCE) {
    throw new errors.JWTExpired('"exp" claim timestamp check failed', payload, "exp", "check_failed")
  }
  return { payload, plaintext }
}

/**
 * Decrypts and claim-checks a session token synchronously (RFC 7516 compact serialization). With a
 * `kid`, only the secret whose key has that thumbprint is used; without one, every secret is tried in
 * order. Throws on any failure, and {@link NeedsSlowPath} for a header or encoding only `jose` handles.
 *
 * @example
 * ```ts
 * const { payload } = decryptJwt(token, [newSecret, oldSecret], "authjs.session-token")
 * ```
 */
export function decryptJwt(token: string, secrets: readonly string[], salt: string): DecryptedJwt {
  const parts = token.split(".")
  if (parts.length !== 5) invalid("Invalid Compact JWE")
  const [encodedHeader = "", encryptedKey = "", encodedIv = "", encodedCiphertext = "", encodedTag = ""] = parts
  // a header seen before was decoded and checked then; the parts are still decoded in the same order
  const kept = keptHeader(encodedHeader)
  const headerBytes = kept ? NO_BYTES : decodePart(encodedHeader, "protected header")
  // the other parts are checked in jose's order here and decoded where they are used; when the whole
  // token is of the alphabet, only their lengths are left to check
  const check = CANONICAL_TOKEN.test(token) ? checkLength : checkPart
  check(encryptedKey, "encrypted_key")
  check(encodedIv, "iv")
  check(encodedCiphertext, "ciphertext")
  check(encodedTag, "tag")
  const header = kept ?? openedHeader(encodedHeader, headerBytes)
  if (encryptedKey !== "") invalid("Encountered unexpected JWE Encrypted Key")
  if (encodedIv === "") invalid("JWE Initialization Vector missing")
  if (encodedTag === "") invalid("JWE Authentication Tag missing")
  const cbc = header.enc === "A256CBC-HS512"
  if (!cbc && decodedLength(encodedTag) !== 16) invalid("Invalid Authentication Tag length")
  if (decodedLength(encodedIv) !== (cbc ? 16 : 12)) invalid("Invalid Initialization Vector length")
  const sealed: SealedParts = { iv: encodedIv, ciphertext: encodedCiphertext, tag: encodedTag }
  const plaintext = openWithSecrets(header, secrets, salt, sealed)
  if (plaintext) return checkClaims(plaintext)
  throw new errors.JWEDecryptionFailed()
}

/**
 * {@link decryptJwt}, falling back to `jose.jwtDecrypt` (Auth.js' options and key resolver, but trying
 * every secret for a token without `kid`) for tokens the fast path leaves to jose, such as `zip`.
 *
 * @example
 * ```ts
 * const { payload } = await decryptJwtAsync(token, secrets, "__Secure-authjs.session-token")
 * ```
 */
export async function decryptJwtAsync(token: string, secrets: readonly string[], salt: string): Promise<DecryptedJwt> {
  try {
    return decryptJwt(token, secrets, salt)
  } catch (error) {
    if (!(error instanceof NeedsSlowPath)) throw error
  }
  const { jwtDecrypt } = await import("jose/jwt/decrypt")
  let firstError: unknown
  for (let start = 0; start < Math.max(secrets.length, 1); start++) {
    let retry = false
    try {
      const { payload } = await jwtDecrypt(
        token,
        async ({ kid, enc }: CompactJWEHeaderParameters): Promise<Uint8Array> => {
          for (const secret of secrets.slice(start)) {
            const derived = deriveKey(secret, salt, enc as ContentEncryption)
            retry = kid === undefined
            if (retry || kid === derived.kid) return derived.key
          }
          throw new Error("no matching decryption secret")
        },
        JOSE_OPTIONS,
      )
      return { payload: payload as Record<string, unknown>, plaintext: JSON.stringify(payload) }
    } catch (error) {
      if (start === 0) firstError = error
      if (!retry) break
    }
  }
  throw firstError
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
