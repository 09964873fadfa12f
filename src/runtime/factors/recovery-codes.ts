/**
 * Recovery codes: the way back in for a user who lost their second factor. Ten single-use codes per
 * user, shown once at issue and kept only as salted scrypt hashes (node:crypto) in the config's
 * server-state port, one record per user: `recovery:{user}` with a `set` field (the set's random id,
 * also the hashes' salt) and one field per unused code (its hash, valued with the set id).
 *
 * Single use across instances is the port's `claim` on the code's hash: two instances redeeming the
 * same code at once, exactly one wins; the winner then removes the code's field, so the claim need only
 * outlive that one redemption. Issuing a new set replaces the record, so every code of the
 * old set stops matching (its hash was salted with the old set's id), and a redemption that raced the
 * new issue is refused by re-reading the set id after its claim.
 */
import { randomBytes, scrypt } from "node:crypto"
import type { ResolvedConfig } from "../../types/resolved.js"
import { stateKey } from "../limits/server-state.js"

/** What the functions of this file need of the resolved config: its server-state port. */
export type RecoveryCodesConfig = Pick<ResolvedConfig, "serverState">

/** How many codes a set has. */
export const RECOVERY_CODE_COUNT = 10
/** Characters of a code (5 bits each, 50 bits in all), shown as two groups of five. */
const CODE_LENGTH = 10
/** Crockford's base32 alphabet: no i, l, o or u, so a code read aloud or copied by hand survives. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
/** Letters people type for the digits they look like (Crockford's decoding rules). */
const LOOKALIKES: Readonly<Record<string, string>> = { i: "1", l: "1", o: "0" }
/** How long a set is kept: the port needs a lifetime, and codes are meant to wait in a drawer for years. */
const KEEP_MS = 10 * 365 * 24 * 60 * 60 * 1000
/**
 * How long a spent code's claim is kept: only until its field is gone from the record (the next call of
 * the same redemption), after which the record itself refuses the code; so used codes do not pile up
 * in the port for years.
 */
const CLAIM_MS = 60 * 60 * 1000
/** scrypt's cost: enough to make an offline search of a leaked store slow, little for one redemption. */
const SCRYPT = { N: 4096, r: 8, p: 1 } as const

const recordKey = (userId: string) => stateKey("recovery", userId)
const usedKey = (userId: string, hash: string) => stateKey("recovery-used", userId, hash)

/** A new random code, `xxxxx-xxxxx` from {@link ALPHABET}. */
function newCode(): string {
  const bytes = randomBytes(CODE_LENGTH)
  let code = ""
  for (let i = 0; i < CODE_LENGTH; i++) {
    if (i === CODE_LENGTH / 2) code += "-"
    code += ALPHABET[(bytes[i] as number) & 31]
  }
  return code
}

/**
 * A code as typed, in its canonical form: lower case, spaces and dashes left out, look-alike letters
 * read as digits; null when it cannot be a code (wrong length or character).
 */
export function normalizeRecoveryCode(input: string): string | null {
  let code = ""
  for (const char of input.toLowerCase()) {
    if (char === "-" || char === " " || char === "\t") continue
    const digit = LOOKALIKES[char] ?? char
    if (!ALPHABET.includes(digit)) return null
    code += digit
  }
  return code.length === CODE_LENGTH ? code : null
}

/** The stored form of a canonical code: scrypt, salted with the set id and the user. */
function hashCode(code: string, set: string, userId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(code, `${set}:${userId}`, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key.toString("base64url"))))
  })
}

/**
 * Issues a new set of {@link RECOVERY_CODE_COUNT} codes for the user and voids the old set. The codes
 * are returned once, to be shown once; only their hashes are kept.
 *
 * @example
 * ```ts
 * const codes = await issueRecoveryCodes(config, user.id) // ["7kq2m-x9d4a", …]
 * ```
 */
export async function issueRecoveryCodes(config: RecoveryCodesConfig, userId: string): Promise<string[]> {
  const set = randomBytes(12).toString("base64url")
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode)
  const hashes = await Promise.all(codes.map((code) => hashCode(normalizeRecoveryCode(code) as string, set, userId)))
  const fields: Record<string, string> = { set }
  for (const hash of hashes) fields[hash] = set
  const key = recordKey(userId)
  // the old set's fields go with the record; a redemption of one of them in between is refused by its set check
  await config.serverState.reset(key)
  await config.serverState.setFields(key, fields, KEEP_MS)
  return codes
}

/** How many unused codes of the user's current set are left (0 when none was issued). */
export async function recoveryCodesLeft(config: RecoveryCodesConfig, userId: string): Promise<number> {
  return countLeft(await config.serverState.getFields(recordKey(userId)))
}

function countLeft(fields: Record<string, string>): number {
  const set = fields.set
  if (!set) return 0
  let left = 0
  for (const [name, value] of Object.entries(fields)) if (name !== "set" && value === set) left++
  return left
}

/**
 * Redeems one of the user's codes: true once for each code of the current set, on whichever
 * instance shares the port; false for a wrong, malformed, used or voided code.
 */
export async function redeemRecoveryCode(config: RecoveryCodesConfig, userId: string, code: string): Promise<boolean> {
  const canonical = normalizeRecoveryCode(code)
  if (canonical === null) return false
  const state = config.serverState
  const key = recordKey(userId)
  const fields = await state.getFields(key)
  const set = fields.set
  if (!set) return false
  const hash = await hashCode(canonical, set, userId)
  if (fields[hash] !== set) return false
  if (!(await state.claim(usedKey(userId, hash), CLAIM_MS))) return false
  // a new set issued between the read and the claim voids this code too, and a field already gone was
  // spent by a redemption whose claim has since expired
  const now = await state.getFields(key)
  if (now.set !== set || now[hash] !== set) return false
  await state.deleteFields(key, [hash])
  return true
}
