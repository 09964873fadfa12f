/** The bench's TOTP users' secrets (the steps bench: the authchart app and the load generator). */
import { createHash } from "node:crypto"
import { base32Encode } from "../src/steps/totp.js"

/**
 * A TOTP user's secret, derived from the user id so the load generator knows it too.
 * @example const secret = await benchTotpSecret("totp-a-1")
 */
export async function benchTotpSecret(userId: string): Promise<string> {
  // the app calls this for every new TOTP user: no import() per call (the TOTP step would carry its cost)
  return base32Encode(createHash("sha1").update(`bench-totp:${userId}`).digest())
}
