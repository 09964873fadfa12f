/**
 * What the node:crypto paths of a passkey registration (webauthn-registration.ts) and sign-in
 * (webauthn-assertion.ts) share: reading the client data as `@simplewebauthn/server` reads it, the
 * checks both ceremonies make of it, the authenticator data's flags and the RP ID's hash.
 */
import { createHash } from "node:crypto"
import { isPlainObject } from "../plain-object.js"

// Authenticator data flags (WebAuthn §6.1)
/** User present (UP). */
export const FLAG_UP = 0x01
/** User verified (UV). */
export const FLAG_UV = 0x04
/** Backup eligible (BE): a multi-device credential. */
export const FLAG_BE = 0x08
/** Backup state (BS): backed up now. */
export const FLAG_BS = 0x10
/** Attested credential data included (AT). */
export const FLAG_AT = 0x40
/** Extension data included (ED). */
export const FLAG_ED = 0x80

/** rpIdHash (32) + flags (1) + signCount (4): the fixed start of authenticator data. */
export const AUTH_DATA_FIXED = 37

const BASE64URL = /^[A-Za-z0-9_-]*$/
/** The client data's text as the library reads it (UTF-8, a leading byte order mark dropped). */
const utf8 = new TextDecoder()

/** Whether `value` is base64url as the library's check has it (padding aside). */
export const isBase64Url = (value: string): boolean => BASE64URL.test(value.replace(/=/g, ""))

/**
 * The bytes of unpadded base64url, or undefined for anything else (padding, another alphabet, a length
 * no encoder writes): the library's decoder and Node's agree on every string this accepts.
 */
export function strictBase64Url(value: string): Buffer | undefined {
  return BASE64URL.test(value) && value.length % 4 !== 1 ? Buffer.from(value, "base64url") : undefined
}

/**
 * Each character's value in base64 and base64url alike (Node's decoder reads both alphabets, mixed);
 * -1 for any other character.
 */
const SEXTET = new Int8Array(128).fill(-1)
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"].entries()) SEXTET[c.charCodeAt(0)] = i
SEXTET[0x2b] = 62 // +
SEXTET[0x2d] = 62 // -
SEXTET[0x2f] = 63 // /
SEXTET[0x5f] = 63 // _

/**
 * `value` (base64 or base64url, padded or not) spelled in standard base64 with padding, or (`url`) in
 * base64url without: what decoding it with Node and encoding the bytes again gives, without a Buffer
 * (a conversion's native calls cost 8-9 µs in a request run cold, this loop under 1). Undefined where
 * it is not a plain re-spelling (another character, a length or padding no encoder writes, bits set
 * after the last byte, which decoding drops): the caller converts through a Buffer then.
 */
export function respellBase64(value: string, url: boolean): string | undefined {
  let end = value.length
  if (end > 0 && value.charCodeAt(end - 1) === 0x3d) {
    if (end % 4 !== 0) return undefined
    end -= value.charCodeAt(end - 2) === 0x3d ? 2 : 1
  }
  const rest = end % 4
  if (rest === 1) return undefined
  let out = ""
  for (let i = 0; i < end; i++) {
    const code = value.charCodeAt(i)
    const v = code < 128 ? (SEXTET[code] ?? -1) : -1
    if (v < 0) return undefined
    out += v === 62 ? (url ? "-" : "+") : v === 63 ? (url ? "_" : "/") : value[i]
  }
  // every character was read above, the last one included: it is in the table
  if (rest !== 0 && ((SEXTET[value.charCodeAt(end - 1)] ?? 0) & (rest === 2 ? 0x0f : 0x03)) !== 0) return undefined
  return url || rest === 0 ? out : rest === 2 ? `${out}==` : `${out}=`
}

/**
 * The text of unpadded base64url whose bytes are all ASCII (then the text is its UTF-8 and JSON reads it
 * as the library does), decoded without a Buffer; undefined for anything else (what
 * {@link strictBase64Url} refuses, or a byte from 0x80 up, a byte order mark included).
 */
function asciiOfBase64Url(value: string): string | undefined {
  const n = value.length
  const rest = n % 4
  if (rest === 1) return undefined
  let out = ""
  // four characters, three bytes, one string of three appended at a time (a third of the appends)
  for (let i = 0; i < n; i += 4) {
    let group = 0
    const count = i + 4 <= n ? 4 : rest
    for (let j = 0; j < 4; j++) {
      const code = j < count ? value.charCodeAt(i + j) : 0x41
      // the URL alphabet only, as strictBase64Url's pattern
      const v = code >= 128 || code === 0x2b || code === 0x2f ? -1 : (SEXTET[code] ?? -1)
      if (v < 0) return undefined
      group = (group << 6) | v
    }
    // a byte from 0x80 up: not ASCII
    if (group & 0x808080) {
      const kept = count === 4 ? 0x808080 : count === 3 ? 0x808000 : 0x800000
      if (group & kept) return undefined
    }
    const a = group >> 16
    const b = (group >> 8) & 0xff
    out += count === 4 ? String.fromCharCode(a, b, group & 0xff) : count === 3 ? String.fromCharCode(a, b) : String.fromCharCode(a)
  }
  return out
}

/**
 * The client data: what to hash for its digest (its ASCII text, whose UTF-8 is its bytes, or its bytes)
 * and its JSON object; undefined when the library should read it.
 */
export function readClientData(encoded: string): { source: string | Buffer; client: Record<string, unknown> } | undefined {
  const text = asciiOfBase64Url(encoded)
  if (text !== undefined) {
    const client: unknown = JSON.parse(text)
    return isPlainObject(client) ? { source: text, client } : undefined
  }
  const bytes = strictBase64Url(encoded)
  if (!bytes) return undefined
  const client: unknown = JSON.parse(utf8.decode(bytes))
  return isPlainObject(client) ? { source: bytes, client } : undefined
}

/**
 * The client data's token binding, when there is one, must be an object with a known status; the
 * library spells "not supported" `not-supported` for registrations and `notSupported` for sign-ins.
 */
export function checkTokenBinding(tokenBinding: unknown, statuses: readonly string[]): void {
  if (!tokenBinding) return
  if (typeof tokenBinding !== "object") throw new Error("clientDataJSON.tokenBinding is not an object")
  const status = isPlainObject(tokenBinding) ? tokenBinding.status : undefined
  if (typeof status !== "string" || !statuses.includes(status)) {
    throw new Error("clientDataJSON.tokenBinding.status is not one WebAuthn defines")
  }
}

const rpIdHashes = new Map<string, Buffer>()

/** SHA-256 of the RP ID, kept per RP ID. */
export function rpIdHash(rpId: string): Buffer {
  let hash = rpIdHashes.get(rpId)
  if (!hash) {
    if (rpIdHashes.size >= 64) rpIdHashes.clear()
    hash = createHash("sha256").update(rpId).digest()
    rpIdHashes.set(rpId, hash)
  }
  return hash
}

/** Whether authenticator data starts with the RP ID's hash (public bytes: no constant-time compare needed). */
export function startsWithRpIdHash(authData: Uint8Array, hash: Buffer): boolean {
  if (authData.length < 32) return false
  for (let i = 0; i < 32; i++) if (authData[i] !== hash[i]) return false
  return true
}

/** The credential's backup state from the flags (WebAuthn §6.1.3); backed up but not eligible is refused. */
export function backupState(flags: number): { credentialBackedUp: boolean; credentialDeviceType: "singleDevice" | "multiDevice" } {
  const credentialBackedUp = (flags & FLAG_BS) !== 0
  const eligible = (flags & FLAG_BE) !== 0
  if (credentialBackedUp && !eligible) throw new Error("The authenticator reports a backup of a credential it says cannot be backed up")
  return { credentialBackedUp, credentialDeviceType: eligible ? "multiDevice" : "singleDevice" }
}
