/** The bench's TOTP users' secrets (the steps bench: the authchart app and the load generator). */
import * as nodeCrypto from "node:crypto"
import { base32Encode } from "../src/steps/totp.js"

/**
 * A TOTP user's secret, derived from the user id so the load generator knows it too.
 * @example const secret = await benchTotpSecret("totp-a-1")
 */
export async function benchTotpSecret(userId: string): Promise<string> {
  // the app calls this for every new TOTP user: no import() per call (the TOTP step would carry its cost)
  // one-shot where Node has it, as an app would derive or look up a value without a Hash object per user
  const text = `bench-totp:${userId}`
  const digest =
    typeof nodeCrypto.hash === "function" ? nodeCrypto.hash("sha1", text, "buffer") : nodeCrypto.createHash("sha1").update(text).digest()
  return base32Encode(digest)
}
