/**
 * Passkey registrations checked with node:crypto (webauthn-registration.ts) beside
 * `@simplewebauthn/server`'s `verifyRegistrationResponse`: valid and altered "none" registrations of
 * each key type get the same verdict on both paths and, when accepted, the same stored credential;
 * what the node:crypto path does not handle is left to the library; the strict CBOR reader reads exactly
 * the form the library writes.
 */
import { describe, expect, it } from "vitest"
import { verifyRegistrationResponse } from "@simplewebauthn/server"
import { decodeCredentialPublicKey, isoCBOR } from "@simplewebauthn/server/helpers"
import { readCoseKey, readNoneAttestation } from "../src/runtime/effects/webauthn-cbor.js"
import { readClientData, respellBase64 } from "../src/runtime/effects/webauthn-client-data.js"
import { registrationExpectation, verifyRegistration, type VerifiedRegistration } from "../src/runtime/effects/webauthn-registration.js"
import { type RegistrationTweak, SoftAuthenticator, type SoftKeyType } from "../bench/webauthn-authenticator.js"
import { ORIGIN } from "./helpers.js"

const rpId = "app.test"
const challenge = "the-registration-challenge"
const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_BE = 0x08
const FLAG_BS = 0x10
const FLAG_AT = 0x40
const FLAG_ED = 0x80
const PRESENT = FLAG_UP | FLAG_UV | FLAG_AT

type Options = { requireUserPresence?: boolean; supportedAlgorithmIDs?: number[]; expectedType?: string }
interface Case {
  tweak?: RegistrationTweak
  /** Changes to the response's JSON after the authenticator made it. */
  edit?: (response: { id: string; rawId: string; type: string; response: Record<string, unknown> }) => void
  /** The provider's `verifyRegistrationOptions` besides `requireUserVerification`. */
  options?: Options
  uv?: boolean
}

/** What gets stored of an accepted registration; "refused"; or "left" (node:crypto's path leaves it to the library). */
type Verdict = "refused" | "left" | Record<string, unknown>

function stored(v: VerifiedRegistration): Record<string, unknown> {
  const { id, publicKey, counter, transports } = v.credential
  return {
    id,
    publicKey: Buffer.from(publicKey).toString("base64"),
    counter,
    transports,
    credentialBackedUp: v.credentialBackedUp,
    credentialDeviceType: v.credentialDeviceType,
  }
}

const authenticators = new Map<SoftKeyType, SoftAuthenticator>()
const authenticatorOf = (keyType: SoftKeyType) => {
  let authenticator = authenticators.get(keyType)
  if (!authenticator) authenticators.set(keyType, (authenticator = new SoftAuthenticator(ORIGIN, keyType)))
  return authenticator
}

async function both(keyType: SoftKeyType, c: Case): Promise<{ fast: Verdict; library: Verdict }> {
  const response = authenticatorOf(keyType).register("pat", { challenge, rp: { id: rpId } }, c.tweak)
  c.edit?.(response as never)
  const requireUserVerification = c.uv ?? true
  let fast: Verdict
  try {
    const expected = registrationExpectation(c.options, { challenge, origin: ORIGIN, rpId, requireUserVerification })
    const verified = expected && verifyRegistration(response as never, expected)
    fast = verified ? stored(verified) : "left"
  } catch {
    fast = "refused"
  }
  const library = await verifyRegistrationResponse({
    ...c.options,
    requireUserVerification,
    response: response as never,
    expectedChallenge: challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: rpId,
  }).then(
    (v): Verdict => (v.verified ? stored(v.registrationInfo) : "refused"),
    (): Verdict => "refused",
  )
  return { fast, library }
}

const keyTypes: SoftKeyType[] = ["es256", "ed25519", "rs256"]
const casesOf = (cases: Record<string, Case>) => keyTypes.flatMap((keyType) => Object.keys(cases).map((name) => [keyType, name] as const))

describe("registrations node:crypto's path checks: the same verdict and the same stored credential as the library", () => {
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
    "a cross-origin registration (neither path checks it)": { tweak: { clientData: { crossOrigin: true } } },
    "client data with a byte order mark (dropped as the library's decoder drops it)": {
      tweak: { clientDataBytes: (json) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]) },
    },
  }
  it.each(casesOf(accepted))("%s, %s: accepted by both, the same credential stored", async (keyType, name) => {
    const { fast, library } = await both(keyType, accepted[name] as Case)
    expect(fast).not.toBe("left")
    expect(fast).not.toBe("refused")
    expect(fast).toEqual(library)
  })

  const refused: Record<string, Case> = {
    "another challenge": { tweak: { clientData: { challenge: "another-challenge" } } },
    "another challenge of the same length": { tweak: { clientData: { challenge: "the-registration-challengf" } } },
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
  }
  it.each(casesOf(refused))("%s, %s: refused by both (node:crypto's path itself)", async (keyType, name) => {
    expect(await both(keyType, refused[name] as Case)).toEqual({ fast: "refused", library: "refused" })
  })
})

describe("what node:crypto's path leaves to the library", () => {
  /** Bytes with `from` replaced by `to` once (a CBOR head written in a longer form, a key of another kind). */
  const replace = (from: number[], to: number[]) => (bytes: Uint8Array) => {
    const at = Buffer.from(bytes).indexOf(Buffer.from(from))
    if (at < 0) throw new Error("not found")
    return Buffer.concat([bytes.subarray(0, at), Buffer.from(to), bytes.subarray(at + from.length)])
  }
  const es384 = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -35],
      [-1, 2],
      [-2, new Uint8Array(48).fill(1)],
      [-3, new Uint8Array(48).fill(2)],
    ]),
  )
  const left: Record<string, Case & { library: "accepted" | "refused" }> = {
    "a packed attestation": { tweak: { fmt: "packed" }, library: "refused" },
    "a none attestation with a statement": { tweak: { attStmt: new Map([["sig", 1]]) }, library: "refused" },
    "extension data": { tweak: { flags: PRESENT | FLAG_ED, extraAuthData: Buffer.from([0xa0]) }, library: "accepted" },
    "bytes after the credential's key": { tweak: { extraAuthData: Buffer.from([0]) }, library: "refused" },
    "no attested credential data flag": { tweak: { flags: FLAG_UP | FLAG_UV }, library: "refused" },
    "a key's map length in a longer CBOR form": {
      tweak: { cose: (k) => Buffer.concat([Buffer.from([0xb8, (k[0] ?? 0) & 0x1f]), k.subarray(1)]) },
      library: "refused",
    },
    "a key's algorithm in a longer CBOR form": { tweak: { cose: (k) => replaceAlg(k) }, library: "refused" },
    "an ES384 key (allowed by the provider)": {
      tweak: { cose: () => es384 },
      options: { supportedAlgorithmIDs: [-35] },
      library: "accepted",
    },
    "an empty credential id (the response's own id aside)": {
      tweak: { credentialId: Buffer.alloc(0) },
      edit: (r) => Object.assign(r, { id: "AAAA", rawId: "AAAA" }),
      library: "accepted",
    },
    "bytes after the attestation object": {
      tweak: { attestationObject: (b) => Buffer.concat([b, Buffer.from([0])]) },
      library: "accepted",
    },
    "an attestation object's field name in a longer CBOR form": {
      tweak: { attestationObject: replace([0x63, 0x66, 0x6d, 0x74], [0x78, 0x03, 0x66, 0x6d, 0x74]) },
      library: "refused",
    },
    "padded base64url client data": {
      // a field whose length leaves the client data's base64url a padding to add
      tweak: { clientData: { note: "x" } },
      edit: (r) => Object.assign(r.response, { clientDataJSON: padded(r.response.clientDataJSON) }),
      library: "accepted",
    },
    "client data with a character outside base64url": {
      edit: (r) => Object.assign(r.response, { clientDataJSON: `.${r.response.clientDataJSON}` }),
      library: "refused",
    },
    "a provider option this path does not honour": { options: { expectedType: "webauthn.create" }, library: "accepted" },
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
  it.each(casesOf(left))("%s, %s: left to the library, whose verdict stands", async (keyType, name) => {
    const c = left[name] as Case & { library: "accepted" | "refused" }
    const { fast, library } = await both(keyType, c)
    expect(fast).toBe("left")
    expect(library === "refused" ? "refused" : "accepted").toBe(c.library)
  })
})

describe("the strict CBOR reader (webauthn-cbor.ts)", () => {
  it.each(keyTypes)("%s: reads a COSE key as the library decodes it, and the library re-encodes it to the same bytes", (keyType) => {
    const response = authenticatorOf(keyType).register("cbor", { challenge, rp: { id: rpId } })
    const attestation = Buffer.from(String((response.response as { attestationObject: string }).attestationObject), "base64url")
    const authData = readNoneAttestation(new Uint8Array(attestation))
    if (!authData) throw new Error("not read")
    const at = 37 + 18 + 16
    const read = readCoseKey(authData, at)
    expect(read?.end).toBe(authData.length)
    const bytes = authData.subarray(at)
    expect(read?.key).toEqual(decodeCredentialPublicKey(new Uint8Array(bytes)))
    // what is read (so what the library decodes) the library's encoder writes as the very bytes read
    expect(Buffer.from(isoCBOR.encode(read?.key ?? new Map()))).toEqual(Buffer.from(bytes))
  })

  it.each([
    ["a map of an integer to bytes", [0xa1, 0x01, 0x41, 0xff], true],
    ["integers at each length's limit", [0xa3, 0x17, 0x18, 0x18, 0x37, 0x19, 0x01, 0x00, 0x38, 0xff, 0x1a, 0x00, 0x01, 0x00, 0x00], true],
    ["a one-byte integer under 24", [0xa1, 0x01, 0x18, 0x17], false],
    ["a two-byte integer under 256", [0xa1, 0x01, 0x19, 0x00, 0xff], false],
    ["a four-byte integer under 65536", [0xa1, 0x01, 0x1a, 0x00, 0x00, 0xff, 0xff], false],
    ["an eight-byte integer", [0xa1, 0x01, 0x1b, 0, 0, 0, 0, 0, 0, 0, 1], false],
    ["a label twice", [0xa2, 0x01, 0x01, 0x01, 0x02], false],
    ["a text value", [0xa1, 0x01, 0x61, 0x41], false],
    ["a text label", [0xa1, 0x61, 0x41, 0x01], false],
    ["bytes past the end", [0xa1, 0x01, 0x42, 0xff], false],
    ["an indefinite-length map", [0xbf, 0x01, 0x01, 0xff], false],
    ["an empty map", [0xa0], false],
    ["a map cut short", [0xa2, 0x01, 0x01], false],
  ] as const)("a COSE key, %s: read %s", (_, bytes, readable) => {
    expect(readCoseKey(Uint8Array.from(bytes), 0) !== undefined).toBe(readable)
  })

  it("an attestation object with a 300,000-byte text key is declined, not a thrown stack overflow", () => {
    const size = 300_000
    const bytes = new Uint8Array(1 + 5 + size + 1)
    bytes.set([0xa3, 0x7a, (size >>> 24) & 0xff, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff])
    bytes.fill(0x61, 6, 6 + size)
    bytes[6 + size] = 0x00
    expect(readNoneAttestation(bytes)).toBeUndefined()
  })
})

describe("ids re-spelt and client data read without a Buffer (webauthn-client-data.ts)", () => {
  /** A small deterministic generator, so a failure names its input. */
  let seed = 17
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed
  }
  const viaBuffer = (value: string, url: boolean) => Buffer.from(value, "base64").toString(url ? "base64url" : "base64")
  const spellings = (bytes: Buffer) => {
    const std = bytes.toString("base64")
    const url = bytes.toString("base64url")
    return [std, url, std.replace(/=+$/, ""), `${url}${"=".repeat((4 - (url.length % 4)) % 4)}`]
  }

  it("every spelling an encoder writes is re-spelt as Node's decode and encode give it", () => {
    for (let length = 0; length < 48; length++) {
      for (let round = 0; round < 8; round++) {
        const bytes = Buffer.from(Array.from({ length }, () => next() & 0xff))
        for (const spelling of spellings(bytes)) {
          for (const url of [false, true]) {
            expect(respellBase64(spelling, url), `${spelling} ${url}`).toBe(viaBuffer(spelling, url))
          }
        }
      }
    }
  })

  it("anything else is left to a Buffer (undefined), never re-spelt otherwise than a Buffer would", () => {
    const odd = ["=", " ", ".", "\n", "é", "A", "+", "-", "/", "_", "=="]
    for (let round = 0; round < 4000; round++) {
      const bytes = Buffer.from(Array.from({ length: next() % 24 }, () => next() & 0xff))
      const spelling = spellings(bytes)[next() % 4] as string
      const at = next() % (spelling.length + 1)
      const edited = spelling.slice(0, at) + (odd[next() % odd.length] as string) + spelling.slice(at + (next() % 2))
      for (const url of [false, true]) {
        const ours = respellBase64(edited, url)
        if (ours !== undefined) expect(ours, JSON.stringify(edited)).toBe(viaBuffer(edited, url))
      }
    }
    // bits after the last byte, a length no encoder writes, a padding of the wrong length
    for (const value of ["QR", "QUF", "QQQQQ", "QQ=", "QQQ==", "Q===", "QQ==QQ=="]) {
      expect(respellBase64(value, false), value).toBeUndefined()
      expect(respellBase64(value, true), value).toBeUndefined()
    }
  })

  it("client data in ASCII is read from its text (the digest of the text is the digest of its bytes); other bytes as before", () => {
    const json = JSON.stringify({ type: "webauthn.create", challenge: "c", origin: ORIGIN })
    const ascii = readClientData(Buffer.from(json).toString("base64url"))
    expect(ascii).toEqual({ source: json, client: JSON.parse(json) })
    // every length (the last group of one, two or three bytes), and a byte from 0x80 up in any position of it
    for (let extra = 0; extra < 6; extra++) {
      const text = `${json}${" ".repeat(extra)}`
      expect(readClientData(Buffer.from(text).toString("base64url"))).toEqual({ source: text, client: JSON.parse(json) })
      const wide = Buffer.from(`${json.slice(0, -1)},"x":"${"a".repeat(extra)}é"}`)
      const read = readClientData(wide.toString("base64url"))
      expect(read?.client).toEqual(JSON.parse(wide.toString()))
      expect(Buffer.isBuffer(read?.source) && read.source.equals(wide)).toBe(true)
    }
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)])
    const bom = readClientData(withBom.toString("base64url"))
    expect(bom?.client).toEqual(JSON.parse(json))
    expect(Buffer.isBuffer(bom?.source) && bom.source.equals(withBom)).toBe(true)
    const accented = JSON.stringify({ type: "webauthn.create", origin: "https://café.test" })
    expect(readClientData(Buffer.from(accented).toString("base64url"))?.client).toEqual(JSON.parse(accented))
    // what the strict reader refuses is refused either way: padding, the other alphabet, a length no encoder writes
    const refused = ["e30=", "+30", "e30/", "e30AA"]
    expect(Buffer.from("{}").toString("base64")).toBe("e30=")
    for (const value of refused) expect(readClientData(value), value).toBeUndefined()
    expect(readClientData("e30")).toEqual({ source: "{}", client: {} })
  })
})
