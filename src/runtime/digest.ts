/**
 * The runtime's text digests and comparisons: SHA-256 of a string, and string equality that takes the
 * same time for every pair of the same length (CSRF tokens, OAuth `state`, WebAuthn challenges).
 */
import * as nodeCrypto from "node:crypto"

/**
 * SHA-256 of `text` as UTF-8: Node's one-shot `crypto.hash` where it has it (20.12 and later: no Hash
 * object per call), else `createHash`.
 * @example sha256("abc", "hex") // "ba7816bf…"
 */
export function sha256(text: string, encoding: "hex" | "base64url"): string {
  return typeof nodeCrypto.hash === "function"
    ? nodeCrypto.hash("sha256", text, encoding)
    : nodeCrypto.createHash("sha256").update(text).digest(encoding)
}

/**
 * Equal strings, compared in constant time for equal lengths: every UTF-16 code unit is read, with no
 * early exit (no buffers made: converting both to UTF-8 cost more than the comparison).
 * @example constantTimeEqual(sentToken, cookieToken)
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}
