/**
 * A software passkey authenticator for the steps bench's load generator and the passkey tests: it
 * answers registration options with a "none" attestation and authentication options with a signature,
 * as a platform authenticator with user verification would (flags UP, UV; a signature counter per
 * credential). One key (ES256 by default; Ed25519 or RS256 for the tests) signs for every credential it
 * makes; the server cannot tell, and the bench needs many credentials fast. It checks nothing of what it
 * is asked, and a test can make it answer wrongly ({@link AssertionTweak}).
 */
import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40
const AAGUID = Buffer.alloc(16)

/** The key the authenticator signs with: COSE algorithms ES256 (-7), EdDSA (-8), RS256 (-257). */
export type SoftKeyType = "es256" | "ed25519" | "rs256"

/** What a test changes in a registration response (each field replaces what the authenticator would send). */
export interface RegistrationTweak {
  flags?: number
  counter?: number
  rpId?: string
  /** Fields of clientDataJSON to set (undefined removes one). */
  clientData?: Record<string, unknown>
  /** The client data's bytes as sent, from the JSON the authenticator made. */
  clientDataBytes?: (json: Buffer) => Buffer
  /** The attestation statement format and statement (default "none" and an empty map). */
  fmt?: string
  attStmt?: Map<string, unknown>
  /** The COSE key's bytes as sent, from its encoding. */
  cose?: (encoded: Uint8Array) => Uint8Array
  credentialId?: Buffer
  /** Bytes appended to the authenticator data. */
  extraAuthData?: Buffer
  /** The attestation object's bytes as sent, from its encoding. */
  attestationObject?: (encoded: Uint8Array) => Uint8Array
  transports?: string[]
}

/** What a test changes in an assertion: signed as changed, unless `signature` replaces the signature. */
export interface AssertionTweak {
  flags?: number
  counter?: number
  rpId?: string
  /** Fields of clientDataJSON to set (undefined removes one). */
  clientData?: Record<string, unknown>
  /** The client data's bytes as sent and signed, from the JSON the authenticator made. */
  clientDataBytes?: (json: Buffer) => Buffer
  /** Bytes appended to the authenticator data. */
  extraAuthData?: Buffer
  signature?: (signature: Buffer) => Buffer
}

interface Credential {
  id: Buffer
  counter: number
}

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest()

/** A PublicKeyCredential as JSON (what the browser script posts), around the ceremony's `response`. */
function credentialJson(credential: Credential, response: Record<string, unknown>): Record<string, unknown> {
  return {
    id: b64u(credential.id),
    rawId: b64u(credential.id),
    type: "public-key",
    clientExtensionResults: {},
    authenticatorAttachment: "platform",
    response,
  }
}

function keyPair(type: SoftKeyType): { publicKey: KeyObject; privateKey: KeyObject } {
  if (type === "ed25519") return generateKeyPairSync("ed25519")
  if (type === "rs256") return generateKeyPairSync("rsa", { modulusLength: 2048 })
  return generateKeyPairSync("ec", { namedCurve: "P-256" })
}

/** The public key as a COSE_Key (RFC 9053). */
function coseKey(type: SoftKeyType, publicKey: KeyObject): Map<number, number | Uint8Array> {
  const jwk = publicKey.export({ format: "jwk" })
  const bytes = (field: string | undefined) => Buffer.from(field as string, "base64url")
  // kty OKP, alg EdDSA, crv Ed25519, x
  if (type === "ed25519")
    return new Map<number, number | Uint8Array>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, bytes(jwk.x)],
    ])
  // kty RSA, alg RS256, n, e
  if (type === "rs256")
    return new Map<number, number | Uint8Array>([
      [1, 3],
      [3, -257],
      [-1, bytes(jwk.n)],
      [-2, bytes(jwk.e)],
    ])
  // kty EC2, alg ES256, crv P-256, x, y
  return new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, bytes(jwk.x)],
    [-3, bytes(jwk.y)],
  ])
}

/** The authenticator; `origin` is the relying party's origin the client data names. */
export class SoftAuthenticator {
  private readonly keys: { publicKey: KeyObject; privateKey: KeyObject }
  private readonly cose: Uint8Array
  private readonly byUser = new Map<string, Credential>()

  constructor(
    private readonly origin: string,
    private readonly keyType: SoftKeyType = "es256",
  ) {
    this.keys = keyPair(keyType)
    this.cose = isoCBOR.encode(coseKey(keyType, this.keys.publicKey))
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, extra: Record<string, unknown> = {}): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false, ...extra }))
  }

  /**
   * The registration response (JSON) to `options` (PublicKeyCredentialCreationOptionsJSON) for `user`,
   * a "none" attestation; `tweak` makes it answer wrongly or in another form.
   */
  register(user: string, options: { challenge: string; rp: { id?: string } }, tweak: RegistrationTweak = {}): Record<string, unknown> {
    const rpId = tweak.rpId ?? options.rp.id ?? new URL(this.origin).hostname
    const credential = { id: tweak.credentialId ?? randomBytes(16), counter: tweak.counter ?? 0 }
    this.byUser.set(user, credential)
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credential.id.length)
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(credential.counter)
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([tweak.flags ?? FLAG_UP | FLAG_UV | FLAG_AT]),
      counter,
      AAGUID,
      idLength,
      credential.id,
      tweak.cose ? tweak.cose(this.cose) : this.cose,
      tweak.extraAuthData ?? Buffer.alloc(0),
    ])
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", tweak.fmt ?? "none"],
        ["attStmt", tweak.attStmt ?? new Map<string, string>()],
        ["authData", authData],
      ]) as Parameters<typeof isoCBOR.encode>[0],
    )
    const clientData = this.clientData("webauthn.create", options.challenge, tweak.clientData)
    return credentialJson(credential, {
      clientDataJSON: b64u(tweak.clientDataBytes ? tweak.clientDataBytes(clientData) : clientData),
      attestationObject: b64u(tweak.attestationObject ? tweak.attestationObject(attestationObject) : attestationObject),
      transports: tweak.transports ?? ["internal"],
    })
  }

  /**
   * The authentication response (JSON) to `options` (PublicKeyCredentialRequestOptionsJSON) with
   * `user`'s credential; `tweak` makes it answer wrongly.
   */
  authenticate(user: string, options: { challenge: string; rpId?: string }, tweak: AssertionTweak = {}): Record<string, unknown> {
    const credential = this.byUser.get(user)
    if (!credential) throw new Error(`no credential for ${user}`)
    credential.counter++
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(tweak.counter ?? credential.counter)
    const authData = Buffer.concat([
      sha256(tweak.rpId ?? options.rpId ?? new URL(this.origin).hostname),
      Buffer.from([tweak.flags ?? FLAG_UP | FLAG_UV]),
      counter,
      tweak.extraAuthData ?? Buffer.alloc(0),
    ])
    const json = this.clientData("webauthn.get", options.challenge, tweak.clientData)
    const clientData = tweak.clientDataBytes ? tweak.clientDataBytes(json) : json
    const signed = Buffer.concat([authData, sha256(clientData)])
    const signature = sign(this.keyType === "ed25519" ? null : "sha256", signed, this.keys.privateKey)
    return credentialJson(credential, {
      clientDataJSON: b64u(clientData),
      authenticatorData: b64u(authData),
      signature: b64u(tweak.signature ? tweak.signature(signature) : signature),
    })
  }
}
