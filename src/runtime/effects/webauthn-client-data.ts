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

/** The client data (its bytes, to hash, and its JSON object), or undefined when the library should read it. */
export function readClientData(encoded: string): { bytes: Buffer; client: Record<string, unknown> } | undefined {
  const bytes = strictBase64Url(encoded)
  if (!bytes) return undefined
  const client: unknown = JSON.parse(utf8.decode(bytes))
  return isPlainObject(client) ? { bytes, client } : undefined
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
