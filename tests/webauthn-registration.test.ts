/**
 * Passkey registrations through `Auth()`, verified by `@simplewebauthn/server`'s
 * `verifyRegistrationResponse`: valid and altered "none" registrations of each key type (from the
 * software authenticator) are accepted or refused (`WebAuthnVerificationError`, nothing stored), and an
 * accepted one stores the `Authenticator` row Auth.js writes: ids and public key in standard base64,
 * the counter, backup state and device type, transports comma-separated.
 */
import { describe, expect, it } from "vitest"
import { verifyRegistrationResponse } from "@simplewebauthn/server"
import { isoCBOR } from "@simplewebauthn/server/helpers"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { AuthConfig } from "../src/index.js"
import Passkey from "../src/providers/passkey.js"
import type { WebAuthnVerifyOptions } from "../src/providers/webauthn-types.js"
import { type RegistrationTweak, SoftAuthenticator, type SoftKeyType } from "../bench/webauthn-authenticator.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_BE = 0x08
const FLAG_BS = 0x10
const FLAG_AT = 0x40
const FLAG_ED = 0x80
const PRESENT = FLAG_UP | FLAG_UV | FLAG_AT

interface Case {
  tweak?: RegistrationTweak
  /** Changes to the response's JSON after the authenticator made it. */
  edit?: (response: { id: string; rawId: string; type: string; response: Record<string, unknown> }) => void
  /** The provider's `verifyRegistrationOptions` besides `requireUserVerification`. */
  options?: Omit<WebAuthnVerifyOptions, "requireUserVerification">
  uv?: boolean
}

const authenticators = new Map<SoftKeyType, SoftAuthenticator>()
const authenticatorOf = (keyType: SoftKeyType) => {
  let authenticator = authenticators.get(keyType)
  if (!authenticator) authenticators.set(keyType, (authenticator = new SoftAuthenticator(ORIGIN, keyType)))
  return authenticator
}

let users = 0

/** A registration through Auth() with the case's provider options: what it answered, stored and would store. */
async function registration(keyType: SoftKeyType, c: Case, adapter = MemoryAdapter()) {
  const log = captureLogger()
  const verifyRegistrationOptions = { ...c.options, requireUserVerification: c.uv ?? true }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    adapter,
    rateLimit: false,
    experimental: { enableWebAuthn: true },
    providers: [Passkey({ verifyRegistrationOptions })],
  }
  const client = new AuthClient(config)
  const email = `user-${++users}@app.test`
  const csrfToken = await client.csrf()
  const optionsRes = await client.send(`/auth/webauthn-options/passkey?action=register&email=${email}`)
  const { options } = (await optionsRes.json()) as { options: { challenge: string; rp: { id?: string } } }
  const response = authenticatorOf(keyType).register(email, options, c.tweak)
  c.edit?.(response as never)
  const res = await client.send("/auth/callback/passkey", { form: { csrfToken, action: "register", data: JSON.stringify(response) } })
  const user = await adapter.getUserByEmail?.(email)
  const stored = user ? await adapter.listAuthenticatorsByUserId?.(user.id) : []
  return { res, log, user, stored: stored ?? [], response, challenge: options.challenge, verifyRegistrationOptions }
}

/** The row Auth.js writes for a registration the library verified (its `verifyRegister` mapping). */
async function authjsRow(r: Awaited<ReturnType<typeof registration>>) {
  const verified = await verifyRegistrationResponse({
    ...r.verifyRegistrationOptions,
    response: r.response as never,
    expectedChallenge: r.challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: "app.test",
  })
  if (!verified.verified) throw new Error("the library refused it")
  const { credential, credentialBackedUp, credentialDeviceType } = verified.registrationInfo
  const credentialID = Buffer.from(credential.id, "base64url").toString("base64")
  const transports = (r.response.response as { transports?: string[] }).transports
  return {
    credentialID,
    providerAccountId: credentialID,
    credentialPublicKey: Buffer.from(credential.publicKey).toString("base64"),
    counter: credential.counter,
    credentialBackedUp,
    credentialDeviceType,
    transports: transports?.join(","),
  }
}

function expectAccepted(r: Awaited<ReturnType<typeof registration>>) {
  expect(r.log.errors).toEqual([])
  expect(r.res.headers.get("location")).toBe(ORIGIN)
  expect(r.stored).toHaveLength(1)
}

function expectRefused(r: Awaited<ReturnType<typeof registration>>) {
  expect(r.res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=WebAuthnVerificationError`)
  expect(r.log.errors.map((e) => (e as { type?: string }).type)).toEqual(["WebAuthnVerificationError"])
  expect(r.user).toBeNull()
  expect(r.stored).toEqual([])
}

const keyTypes: SoftKeyType[] = ["es256", "ed25519", "rs256"]
const casesOf = (cases: Record<string, Case>) => keyTypes.flatMap((keyType) => Object.keys(cases).map((name) => [keyType, name] as const))

const es384 = isoCBOR.encode(
  new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -35],
    [-1, 2],
    [-2, new Uint8Array(48).fill(1)],
    [-3, new Uint8Array(48).fill(2)],
  ]),
)

describe("registrations accepted: the Authenticator row Auth.js writes", () => {
  const accepted: Record<string, Case> = {
    "a valid registration": {},
    "no user verification where the provider does not require it": { tweak: { flags: FLAG_UP | FLAG_AT }, uv: false },
    "no user presence where the provider does not require it": {
      tweak: { flags: FLAG_UV | FLAG_AT },
      options: { requireUserPresence: false },
    },
    "a multi-device credential, backed up": { tweak: { flags: PRESENT | FLAG_BE | FLAG_BS } },
    "a multi-device credential, not backed up yet": { tweak: { flags: PRESENT | FLAG_BE } },
    "a signature counter already past 0": { tweak: { counter: 7 } },
    "other transports": { tweak: { transports: ["usb", "nfc"] } },
    "a token binding status spelled as the library spells it for registrations": {
      tweak: { clientData: { tokenBinding: { status: "not-supported" } } },
    },
    "the provider's own list of algorithms, the key's among them": { options: { supportedAlgorithmIDs: [-257, -8, -7] } },
    "a cross-origin registration": { tweak: { clientData: { crossOrigin: true } } },
    "client data with a byte order mark": {
      tweak: { clientDataBytes: (json) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]) },
    },
    "extension data": { tweak: { flags: PRESENT | FLAG_ED, extraAuthData: Buffer.from([0xa0]) } },
    "an ES384 key (allowed by the provider)": { tweak: { cose: () => es384 }, options: { supportedAlgorithmIDs: [-35] } },
    "bytes after the attestation object": { tweak: { attestationObject: (b) => Buffer.concat([b, Buffer.from([0])]) } },
    "padded base64url client data": {
      // a field whose length leaves the client data's base64url a padding to add
      tweak: { clientData: { note: "x" } },
      edit: (r) => Object.assign(r.response, { clientDataJSON: padded(r.response.clientDataJSON) }),
    },
  }
  it.each(casesOf(accepted))("%s, %s: signed in, the row stored as Auth.js writes it", async (keyType, name) => {
    const r = await registration(keyType, accepted[name] as Case)
    expectAccepted(r)
    const [row] = r.stored
    const expected = await authjsRow(r)
    expect(row).toMatchObject({ ...expected, transports: expected.transports || null, userId: r.user?.id })
    expect(r.res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })

  it("the stored row and account: standard base64 id and key, counter, backup state, device type, transports", async () => {
    const r = await registration("es256", { tweak: { flags: PRESENT | FLAG_BE | FLAG_BS, counter: 3, transports: ["usb", "nfc"] } })
    expectAccepted(r)
    const [row] = r.stored
    const rawId = Buffer.from(r.response.rawId as string, "base64url")
    expect(row).toEqual({
      credentialID: rawId.toString("base64"),
      providerAccountId: rawId.toString("base64"),
      userId: r.user?.id,
      credentialPublicKey: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/),
      counter: 3,
      credentialBackedUp: true,
      credentialDeviceType: "multiDevice",
      transports: "usb,nfc",
    })
  })
})

/** The client data with its challenge's last character changed (the same length). */
function otherChallenge(response: Record<string, unknown>): string {
  const client = JSON.parse(Buffer.from(String(response.clientDataJSON), "base64url").toString()) as { challenge: string }
  const last = client.challenge.at(-1) === "A" ? "B" : "A"
  client.challenge = `${client.challenge.slice(0, -1)}${last}`
  return Buffer.from(JSON.stringify(client)).toString("base64url")
}

/** base64url with its padding (the client data's length is such that it has some). */
function padded(value: unknown): string {
  const text = String(value)
  const pad = (4 - (text.length % 4)) % 4
  if (pad === 0) throw new Error("this client data needs no padding")
  return text + "=".repeat(pad)
}

/** The key with its algorithm (label 3: ES256, EdDSA or RS256) written in a longer form (two bytes, RS256's four). */
function replaceAlg(key: Uint8Array): Uint8Array {
  const at = key.findIndex((byte, i) => byte === 0x03 && [0x26, 0x27, 0x39].includes(key[i + 1] ?? 0))
  const alg = key[at + 1] ?? 0
  const longer = alg === 0x26 ? [0x39, 0x00, 0x06] : alg === 0x27 ? [0x39, 0x00, 0x07] : [0x3a, 0x00, 0x00, 0x01, 0x00]
  const length = alg === 0x39 ? 3 : 1
  return Buffer.concat([key.subarray(0, at + 1), Buffer.from(longer), key.subarray(at + 1 + length)])
}

/** Bytes with `from` replaced by `to` once (a CBOR head written in a longer form). */
const replace = (from: number[], to: number[]) => (bytes: Uint8Array) => {
  const at = Buffer.from(bytes).indexOf(Buffer.from(from))
  if (at < 0) throw new Error("not found")
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(to), bytes.subarray(at + from.length)])
}

describe("registrations refused: WebAuthnVerificationError, nothing stored", () => {
  const refused: Record<string, Case> = {
    "another challenge": { tweak: { clientData: { challenge: "another-challenge" } } },
    "another challenge of the same length": { edit: (r) => Object.assign(r.response, { clientDataJSON: otherChallenge(r.response) }) },
    "a challenge of another type": { tweak: { clientData: { challenge: 42 } } },
    "another origin": { tweak: { clientData: { origin: "https://evil.test" } } },
    "the type of a sign-in (webauthn.get)": { tweak: { clientData: { type: "webauthn.get" } } },
    "another RP ID's hash": { tweak: { rpId: "evil.test" } },
    "no user presence (UP)": { tweak: { flags: FLAG_UV | FLAG_AT } },
    "no user verification (UV) where required": { tweak: { flags: FLAG_UP | FLAG_AT } },
    "backed up but not eligible for backup": { tweak: { flags: PRESENT | FLAG_BS } },
    "a token binding with an unknown status": { tweak: { clientData: { tokenBinding: { status: "notSupported" } } } },
    "a token binding that is not an object": { tweak: { clientData: { tokenBinding: "present" } } },
    "a key whose algorithm the provider does not allow": { options: { supportedAlgorithmIDs: [-36] } },
    "client data that is not JSON": { tweak: { clientDataBytes: () => Buffer.from("{") } },
    "an id other than its rawId": { edit: (r) => Object.assign(r, { id: `${r.id}A` }) },
    "a type other than public-key": { edit: (r) => Object.assign(r, { type: "password" }) },
    "no id": { edit: (r) => Object.assign(r, { id: "", rawId: "" }) },
    "a packed attestation without its statement": { tweak: { fmt: "packed" } },
    "a none attestation with a statement": { tweak: { attStmt: new Map([["sig", 1]]) } },
    "bytes after the credential's key": { tweak: { extraAuthData: Buffer.from([0]) } },
    "no attested credential data flag": { tweak: { flags: FLAG_UP | FLAG_UV } },
    "a key's map length in a longer CBOR form": {
      tweak: { cose: (k) => Buffer.concat([Buffer.from([0xb8, (k[0] ?? 0) & 0x1f]), k.subarray(1)]) },
    },
    "a key's algorithm in a longer CBOR form": { tweak: { cose: (k) => replaceAlg(k) } },
    "an attestation object's field name in a longer CBOR form": {
      tweak: { attestationObject: replace([0x63, 0x66, 0x6d, 0x74], [0x78, 0x03, 0x66, 0x6d, 0x74]) },
    },
    "client data with a character outside base64url": {
      edit: (r) => Object.assign(r.response, { clientDataJSON: `.${r.response.clientDataJSON}` }),
    },
  }
  it.each(casesOf(refused))("%s, %s", async (keyType, name) => {
    expectRefused(await registration(keyType, refused[name] as Case))
  })

  it("an attestation object with a 300,000-byte text key is refused, not a crash", async () => {
    const size = 300_000
    const bytes = new Uint8Array(1 + 5 + size + 1)
    bytes.set([0xa3, 0x7a, (size >>> 24) & 0xff, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff])
    bytes.fill(0x61, 6, 6 + size)
    bytes[6 + size] = 0x00
    expectRefused(await registration("es256", { tweak: { attestationObject: () => bytes } }))
  })

  it("a credential already registered is refused", async () => {
    const credentialId = Buffer.from("a-credential-registered-twice")
    const adapter = MemoryAdapter()
    expectAccepted(await registration("es256", { tweak: { credentialId } }, adapter))
    const second = await registration("es256", { tweak: { credentialId } }, adapter)
    expect(second.res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=WebAuthnVerificationError`)
    expect(second.log.errors.map((e) => e.message)).toEqual(["This passkey is already registered."])
  })
})
