/**
 * The runtime's digests and comparisons, all computed by `node:crypto`: SHA-256 of a string, HMAC under a
 * key prepared once, and an equality check that takes the same time for every pair of the same length
 * (CSRF tokens, OAuth `state`, WebAuthn challenges).
 */
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto"
import * as nodeCrypto from "node:crypto"

/** Node's one-shot `crypto.hash` (20.12 and later) skips a Hash object per call; older Node uses `createHash`. */
const oneShot = typeof nodeCrypto.hash === "function" ? nodeCrypto.hash : undefined

/**
 * SHA-256 of `data` (a string as UTF-8). `binary` gives the digest as latin1 text, one character a byte,
 * for a caller that writes it into a buffer of its own.
 * @example sha256("abc", "hex") // "ba7816bf…"
 */
export function sha256(data: string | Buffer, encoding: "hex" | "base64url" | "binary"): string {
  return oneShot ? oneShot("sha256", data, encoding) : createHash("sha256").update(data).digest(encoding)
}

/**
 * Equal strings, compared with `crypto.timingSafeEqual`: for equal lengths the time does not depend on
 * where they differ. Different lengths answer `false` at once (the length of a token is not a secret).
 * @example constantTimeEqual(sentToken, cookieToken)
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8")
  const right = Buffer.from(b, "utf8")
  return left.length === right.length && timingSafeEqual(left, right)
}

/** An HMAC key made once by {@link hmacKey}: the hash and Node's `KeyObject` of the secret. */
export interface HmacKey {
  readonly alg: "sha1" | "sha256" | "sha512"
  readonly key: KeyObject
}

/**
 * A key made ready for {@link hmac}: a string is taken as UTF-8, as `createHmac` takes it. The caller's
 * buffer is copied into the `KeyObject`, never kept or changed.
 * @example const key = hmacKey("sha256", secret); hmac(key, [Buffer.from(account)])
 */
export function hmacKey(alg: HmacKey["alg"], secret: Buffer | string): HmacKey {
  return { alg, key: createSecretKey(typeof secret === "string" ? Buffer.from(secret, "utf8") : secret) }
}

/**
 * HMAC (RFC 2104) of the concatenated `parts` under `key`, by `crypto.createHmac`.
 * @example hmac(hmacKey("sha256", secret), [Buffer.from("ada@example.com")])
 */
export function hmac(key: HmacKey, parts: readonly Buffer[]): Buffer {
  const mac = createHmac(key.alg, key.key)
  for (const part of parts) mac.update(part)
  return mac.digest()
}
