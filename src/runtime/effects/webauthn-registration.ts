/**
 * A passkey registration with a "none" attestation checked synchronously with node:crypto (WebAuthn L3
 * §7.1; the checks as `@simplewebauthn/server`'s `verifyRegistrationResponse` makes them, which stays
 * the path for what this file does not handle). "none" is what the passkey providers ask for by
 * default (`attestationType: "none"`), so there is no attestation statement to verify: what is left is
 * the client data, the authenticator data and the credential's public key, read here without the
 * library's async WebCrypto hashing and its CBOR decoding and re-encoding.
 *
 * Handled: a response whose client data is unpadded base64url holding a JSON object, whose attestation
 * object is "none" with an empty statement in the shortest CBOR form (webauthn-cbor.ts), whose
 * authenticator data carries attested credential data (a non-empty credential id and a COSE key in that
 * form, ES256, EdDSA or RS256) and no extensions, and nothing after them; and provider options limited
 * to those below. Anything else answers `undefined` and the caller verifies with the library.
 */
import type { RegistrationResponseJSON, WebAuthnCredential } from "@simplewebauthn/server"
import { readCoseKey, readNoneAttestation } from "./webauthn-cbor.js"
import {
  AUTH_DATA_FIXED,
  FLAG_AT,
  FLAG_ED,
  FLAG_UP,
  FLAG_UV,
  backupState,
  checkTokenBinding,
  readClientData,
  rpIdHash,
  startsWithRpIdHash,
  strictBase64Url,
} from "./webauthn-client-data.js"
import { constantTimeEqual } from "../digest.js"

/** What the response must match, as the library's options (one origin, one RP ID). */
export interface RegistrationExpectation {
  challenge: string
  origin: string
  rpId: string
  requireUserVerification: boolean
  /** The library's `requireUserPresence` (default true). */
  requireUserPresence: boolean
  /** COSE algorithms the new key may use (the library's `supportedAlgorithmIDs`). */
  supportedAlgorithmIDs: readonly number[]
}

/** A verified registration: the fields of the library's `registrationInfo` that are stored. */
export interface VerifiedRegistration {
  /** The credential: its id (base64url), COSE public key (as the library stores it), counter and transports. */
  credential: WebAuthnCredential
  credentialBackedUp: boolean
  credentialDeviceType: "singleDevice" | "multiDevice"
}

/** EdDSA, ES256, RS256: the library's default algorithms, and the keys the sign-in path checks itself. */
export const DEFAULT_ALGORITHMS: readonly number[] = [-8, -7, -257]
/** The statuses of a token binding the library accepts in a registration's client data. */
const TOKEN_BINDING = ["present", "supported", "not-supported"]
/** rpIdHash, flags, signCount, then AAGUID (16) and the credential id's length (2). */
const ATTESTED_START = AUTH_DATA_FIXED + 18

/** What a provider's `verifyRegistrationOptions` add to the expectation, the same for every request. */
export type RegistrationRules = Pick<RegistrationExpectation, "requireUserPresence" | "supportedAlgorithmIDs">

/**
 * The rules of a provider's `verifyRegistrationOptions`, or undefined when they carry an option this
 * path does not honour (from untyped configs) and the library must verify.
 */
export function registrationRules(options: object | undefined): RegistrationRules | undefined {
  let requireUserPresence = true
  let supportedAlgorithmIDs = DEFAULT_ALGORITHMS
  for (const [key, value] of Object.entries(options ?? {})) {
    if (value === undefined || key === "requireUserVerification") continue
    if (key === "requireUserPresence" && typeof value === "boolean") requireUserPresence = value
    else if (key === "supportedAlgorithmIDs" && Array.isArray(value) && value.every((id) => typeof id === "number")) {
      supportedAlgorithmIDs = value
    } else return undefined
  }
  return { requireUserPresence, supportedAlgorithmIDs }
}

/** The expectation for a provider's `verifyRegistrationOptions` ({@link registrationRules}), or undefined. */
export function registrationExpectation(
  options: object | undefined,
  base: Omit<RegistrationExpectation, "requireUserPresence" | "supportedAlgorithmIDs">,
): RegistrationExpectation | undefined {
  const rules = registrationRules(options)
  return rules && { ...base, ...rules }
}

/** The client data checks of a registration (§7.1 steps 7–10), as the library makes them. */
function checkClientData(client: Record<string, unknown>, expected: RegistrationExpectation): void {
  if (client.type !== "webauthn.create") throw new Error("clientDataJSON.type is not webauthn.create")
  if (typeof client.challenge !== "string" || !constantTimeEqual(client.challenge, expected.challenge)) {
    throw new Error("clientDataJSON.challenge is not the challenge these options issued")
  }
  if (client.origin !== expected.origin) throw new Error("clientDataJSON.origin is not the relying party's origin")
  checkTokenBinding(client.tokenBinding, TOKEN_BINDING)
}

/**
 * Verifies a registration response; `undefined` when it is a kind this path leaves to the library.
 * Throws, saying which check failed, when one does.
 */
export function verifyRegistration(
  response: RegistrationResponseJSON,
  expected: RegistrationExpectation,
): VerifiedRegistration | undefined {
  if (!response.id) throw new Error("The response has no credential id")
  if (response.id !== response.rawId) throw new Error("The response's id and rawId differ")
  if (response.type !== "public-key") throw new Error("The response's type is not public-key")
  const clientData = readClientData(response.response.clientDataJSON)
  if (!clientData) return undefined
  checkClientData(clientData.client, expected)
  const attestation = strictBase64Url(response.response.attestationObject)
  const authData = attestation && readNoneAttestation(attestation)
  if (!authData || authData.length < ATTESTED_START) return undefined
  const flags = authData[32] ?? 0
  if (!(flags & FLAG_AT) || flags & FLAG_ED) return undefined
  const idLength = ((authData[ATTESTED_START - 2] ?? 0) << 8) | (authData[ATTESTED_START - 1] ?? 0)
  const idEnd = ATTESTED_START + idLength
  const publicKey = idLength > 0 ? readCoseKey(authData, idEnd) : undefined
  if (!publicKey || publicKey.end !== authData.length) return undefined
  const alg = publicKey.key.get(3)
  if (typeof alg !== "number" || !DEFAULT_ALGORITHMS.includes(alg)) return undefined

  if (!startsWithRpIdHash(authData, rpIdHash(expected.rpId))) {
    throw new Error("authenticatorData's rpIdHash is not SHA-256 of the RP ID")
  }
  if (expected.requireUserPresence && !(flags & FLAG_UP)) throw new Error("The authenticator did not report user presence (UP)")
  if (expected.requireUserVerification && !(flags & FLAG_UV)) {
    throw new Error("User verification is required and the authenticator did not report it (UV)")
  }
  if (!expected.supportedAlgorithmIDs.includes(alg)) throw new Error(`The new key's algorithm (${alg}) is not one the options allow`)
  // a view of the bytes to encode and read (no copy); the key is copied out, as the library's is
  const view = Buffer.from(authData.buffer, authData.byteOffset, authData.length)
  return {
    credential: {
      id: view.toString("base64url", ATTESTED_START, idEnd),
      publicKey: new Uint8Array(authData.subarray(idEnd, publicKey.end)),
      counter: view.readUInt32BE(33),
      ...(response.response.transports ? { transports: response.response.transports } : {}),
    },
    ...backupState(flags),
  }
}
