/**
 * A passkey sign-in's assertion checked with node:crypto, synchronously (WebAuthn L3 §7.2, the checks
 * and their order as `@simplewebauthn/server`'s `verifyAuthenticationResponse`, which stays the path for
 * what this file does not handle). The library imports the stored COSE key into WebCrypto on every
 * verification and runs its hashes and the signature check as async WebCrypto jobs; here the key is a
 * `KeyObject` made once per stored key (a bounded cache), the hashes and the check are synchronous.
 *
 * Handled: keys the default registration accepts, EC2 P-256 with ES256 (-7), OKP Ed25519 with EdDSA
 * (-8) and RSA with RS256 (-257), and authenticator data without attested credential data or
 * extensions (an assertion carries neither unless the relying party asked for extensions), with client
 * data in unpadded base64url holding a JSON object and, for ES256, a signature in canonical DER (checked
 * as sent, no conversion). Anything else answers `undefined` and the caller verifies with the library.
 */
import { type KeyObject, createPublicKey, verify } from "node:crypto"
import type { AuthenticationResponseJSON } from "@simplewebauthn/server"
import { type CoseKey, readCoseKey } from "./webauthn-cbor.js"
import {
  AUTH_DATA_FIXED,
  FLAG_AT,
  FLAG_ED,
  FLAG_UP,
  FLAG_UV,
  backupState,
  checkTokenBinding,
  isBase64Url,
  readClientData,
  rpIdHash,
  startsWithRpIdHash,
} from "./webauthn-client-data.js"
import { constantTimeEqual, sha256 } from "../digest.js"

/** What the response must match, as the library's `expected*` options (one origin, one RP ID). */
export interface AssertionExpectation {
  challenge: string
  origin: string
  rpId: string
  requireUserVerification: boolean
}

/** The stored credential: its COSE public key (standard base64, as stored) and signature counter. */
export interface StoredCredential {
  publicKey: string
  counter: number
}

/** A verified assertion's outcome: whether the signature holds, and the counter to store. */
export interface AssertionResult {
  verified: boolean
  newCounter: number
}

/** A stored key's signature check: whether the signature holds, or undefined to leave it to the library. */
type Check = (data: Buffer, signature: Buffer) => boolean | undefined

/** Stored keys already made into checks (null: a key this file leaves to the library), oldest out. */
const checks = new Map<string, Check | null>()
/** How many stored keys {@link checks} keeps. */
export const ASSERTION_KEY_CACHE = 1024

/** The options a provider may give `verifyAuthenticationResponse` that this path honours. */
const HONOURED = new Set<string>(["requireUserVerification", "requireUserPresence", "supportedAlgorithmIDs"])

/**
 * Whether this path may verify for a provider: not when its `verifyAuthenticationOptions` carry an
 * option the library would act on and this path does not (from untyped configs).
 */
export function handlesOptions(options: object | undefined): boolean {
  return options === undefined || Object.keys(options).every((key) => HONOURED.has(key))
}

/** A DER INTEGER at `at` in its minimal form, positive, at most `size` bytes of value: where it ends, or -1. */
function minimalInteger(der: Buffer, at: number, size: number): number {
  const length = der[at + 1]
  if (der[at] !== 0x02 || length === undefined || length === 0 || length > size + 1) return -1
  const first = der[at + 2] ?? 0
  const second = der[at + 3] ?? 0
  // a leading zero only before a byte with its top bit set, and no top bit set on the first byte
  if (first === 0 ? length === 1 || second < 0x80 : first >= 0x80 || length > size) return -1
  return at + 2 + length
}

/**
 * Whether an ECDSA signature is DER in its one canonical form (short lengths, minimal positive
 * integers of up to 32 bytes), which node:crypto and the library read alike; the library reads other
 * forms its own, lenient way, so those are left to it.
 */
function canonicalDer(der: Buffer): boolean {
  if (der[0] !== 0x30 || der[1] !== der.length - 2 || der.length > 0x81) return false
  const next = minimalInteger(der, 2, 32)
  return next > 0 && minimalInteger(der, next, 32) === der.length
}

const b64u = (value: unknown): string | undefined => (value instanceof Uint8Array ? Buffer.from(value).toString("base64url") : undefined)

/** The signature check of a COSE key, or null when it is a kind left to the library. */
function checkOf(cose: CoseKey): Check | null {
  const kty = cose.get(1)
  const alg = cose.get(3)
  if (kty === 2 && alg === -7 && cose.get(-1) === 1) {
    const x = b64u(cose.get(-2))
    const y = b64u(cose.get(-3))
    if (!x || !y) return null
    const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x, y }, format: "jwk" })
    return (data, signature) => (canonicalDer(signature) ? verify("sha256", data, key, signature) : undefined)
  }
  if (kty === 1 && alg === -8 && cose.get(-1) === 6) {
    const x = b64u(cose.get(-2))
    if (!x) return null
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })
    return (data, signature) => verify(null, data, key, signature)
  }
  if (kty === 3 && alg === -257) {
    const n = b64u(cose.get(-1))
    const e = b64u(cose.get(-2))
    if (!n || !e) return null
    const key: KeyObject = createPublicKey({ key: { kty: "RSA", n, e }, format: "jwk" })
    return (data, signature) => verify("sha256", data, key, signature)
  }
  return null
}

/**
 * The check of a stored key, made on first use and kept (null: left to the library, which decodes
 * keys stored in another CBOR form, or refuses them, its own way).
 */
function storedCheck(publicKey: string): Check | null {
  let check = checks.get(publicKey)
  if (check !== undefined) return check
  const bytes = Buffer.from(publicKey, "base64")
  const cose = readCoseKey(bytes, 0)
  try {
    check = cose && cose.end === bytes.length ? checkOf(cose.key) : null
  } catch {
    check = null // a key node:crypto refuses: the library's verdict
  }
  const oldest = checks.keys().next()
  if (checks.size >= ASSERTION_KEY_CACHE && !oldest.done) checks.delete(oldest.value)
  checks.set(publicKey, check)
  return check
}

/** The client data checks (§7.2 steps 11–14 and the cross-origin rules the library applies). */
function checkClientData(client: Record<string, unknown>, expected: AssertionExpectation): void {
  if (client.type !== "webauthn.get") throw new Error("clientDataJSON.type is not webauthn.get")
  if (typeof client.challenge !== "string" || !constantTimeEqual(client.challenge, expected.challenge)) {
    throw new Error("clientDataJSON.challenge is not the challenge these options issued")
  }
  // no expected top origin is configured: a cross-origin response naming its top origin is refused
  if (client.crossOrigin && client.topOrigin) {
    throw new Error("A cross-origin response names a top origin, and none is expected")
  }
  if (!client.crossOrigin && client.topOrigin) throw new Error("A same-origin response names a top origin")
  if (client.origin !== expected.origin) {
    throw new Error("clientDataJSON.origin is not the relying party's origin")
  }
}

/** The token binding statuses the library accepts in a sign-in's client data. */
const TOKEN_BINDING = ["present", "supported", "notSupported"]

/**
 * Verifies an assertion for `credential`; `undefined` when the key or the authenticator data is a kind
 * this path leaves to the library. Throws, saying which check failed, when one does; answers
 * `verified: false` when only the signature does not hold (as the library does).
 */
export function verifyAssertion(
  response: AuthenticationResponseJSON,
  expected: AssertionExpectation,
  credential: StoredCredential,
): AssertionResult | undefined {
  const check = storedCheck(credential.publicKey)
  if (!check) return undefined
  const reply = response.response
  if (!response.id) throw new Error("The response has no credential id")
  if (response.id !== response.rawId) throw new Error("The response's id and rawId differ")
  if (response.type !== "public-key") throw new Error("The response's type is not public-key")
  const clientData = readClientData(reply.clientDataJSON)
  if (!clientData) return undefined
  const { source: clientDataJSON, client } = clientData
  checkClientData(client, expected)
  if (!isBase64Url(reply.authenticatorData)) throw new Error("authenticatorData is not base64url")
  if (!isBase64Url(reply.signature)) throw new Error("The signature is not base64url")
  if (reply.userHandle && typeof reply.userHandle !== "string") throw new Error("userHandle is not a string")
  checkTokenBinding(client.tokenBinding, TOKEN_BINDING)
  // one buffer for the signed bytes, authenticator data ‖ SHA-256(client data), and the signature after
  // them: each decoded into it as `Buffer.from` decodes it, the client data's digest written in between
  const room = (reply.authenticatorData.length * 3) >>> 2
  const bytes = Buffer.allocUnsafe(room + 32 + ((reply.signature.length * 3) >>> 2))
  const length = bytes.write(reply.authenticatorData, 0, room, "base64url")
  if (length < AUTH_DATA_FIXED) throw new Error(`authenticatorData has ${length} bytes, fewer than the 37 of its fixed part`)
  const flags = bytes[32] ?? 0
  if (flags & (FLAG_AT | FLAG_ED)) return undefined
  if (length > AUTH_DATA_FIXED) throw new Error("authenticatorData has bytes after its fixed part and no flag announces them")
  if (!startsWithRpIdHash(bytes, rpIdHash(expected.rpId))) throw new Error("authenticatorData's rpIdHash is not SHA-256 of the RP ID")
  if (!(flags & FLAG_UP)) throw new Error("The authenticator did not report user presence (UP)")
  if (expected.requireUserVerification && !(flags & FLAG_UV)) {
    throw new Error("User verification is required and the authenticator did not report it (UV)")
  }
  const counter = bytes.readUInt32BE(33)
  if ((counter > 0 || credential.counter > 0) && counter <= credential.counter) {
    throw new Error(`The signature counter did not move forward (${counter} after ${credential.counter})`)
  }
  backupState(flags)
  bytes.write(sha256(clientDataJSON, "binary"), length, "latin1")
  const signatureLength = bytes.write(reply.signature, length + 32, "base64url")
  const signed = bytes.subarray(0, length + 32)
  const verified = check(signed, bytes.subarray(length + 32, length + 32 + signatureLength))
  return verified === undefined ? undefined : { verified, newCounter: counter }
}
