/**
 * A software passkey authenticator for the steps bench's load generator: it answers registration
 * options with a "none" attestation and authentication options with an ES256 signature, as a platform
 * authenticator with user verification would (flags UP, UV; a signature counter per credential). One
 * P-256 key signs for every credential it makes; the server cannot tell, and the bench needs many
 * credentials fast. Only for the bench: it checks nothing of what it is asked.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40
const AAGUID = Buffer.alloc(16)

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

/** The authenticator; `origin` is the relying party's origin the client data names. */
export class SoftAuthenticator {
  private readonly keys = generateKeyPairSync("ec", { namedCurve: "P-256" })
  private readonly cose: Uint8Array
  private readonly byUser = new Map<string, Credential>()

  constructor(private readonly origin: string) {
    const jwk = this.keys.publicKey.export({ format: "jwk" })
    // COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y
    const key = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, "base64url")],
      [-3, Buffer.from(jwk.y as string, "base64url")],
    ])
    this.cose = isoCBOR.encode(key)
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }))
  }

  /** The registration response (JSON) to `options` (PublicKeyCredentialCreationOptionsJSON) for `user`. */
  register(user: string, options: { challenge: string; rp: { id?: string } }): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(this.origin).hostname
    const credential = { id: randomBytes(16), counter: 0 }
    this.byUser.set(user, credential)
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credential.id.length)
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
      Buffer.alloc(4),
      AAGUID,
      idLength,
      credential.id,
      this.cose,
    ])
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authData],
      ]),
    )
    return credentialJson(credential, {
      clientDataJSON: b64u(this.clientData("webauthn.create", options.challenge)),
      attestationObject: b64u(attestationObject),
      transports: ["internal"],
    })
  }

  /** The authentication response (JSON) to `options` (PublicKeyCredentialRequestOptionsJSON) with `user`'s credential. */
  authenticate(user: string, options: { challenge: string; rpId?: string }): Record<string, unknown> {
    const credential = this.byUser.get(user)
    if (!credential) throw new Error(`no credential for ${user}`)
    credential.counter++
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(credential.counter)
    const authData = Buffer.concat([sha256(options.rpId ?? new URL(this.origin).hostname), Buffer.from([FLAG_UP | FLAG_UV]), counter])
    const clientData = this.clientData("webauthn.get", options.challenge)
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), this.keys.privateKey)
    return credentialJson(credential, { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) })
  }
}
