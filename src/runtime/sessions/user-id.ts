import { sha256 } from "../crypto/digest.js"

/**
 * A stable user id without an adapter: derived from provider and account id, UUID-shaped.
 * @example stableUserId("email-code", "ada@example.com") // the same id at every sign-in
 */
export function stableUserId(provider: string, providerAccountId: string): string {
  const hex = sha256(`${provider}\u0000${providerAccountId}`, "hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
