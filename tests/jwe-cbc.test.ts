import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { CbcDecryptionFailed, openCbc, sealCbc } from "../src/runtime/jwe-cbc.js"

// A256CBC-HS512 on one long-lived cipher per key and direction: every token must be byte-for-byte what a
// fresh cipher at the token's IV gives, whatever was sealed or opened before it under the same key.

const aad = Buffer.from("eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0", "latin1")
const al = Buffer.alloc(8)
al.writeBigUInt64BE(BigInt(aad.length * 8))

const b64 = (b: Buffer) => b.toString("base64url")
const tagOf = (key: Buffer, iv: Buffer, ct: Buffer) =>
  createHmac("sha512", key.subarray(0, 32))
    .update(Buffer.concat([aad, iv, ct, al]))
    .digest()
    .subarray(0, 32)

/** A token's last three parts made the standard way: a fresh cipher at `iv` (padding as given). */
function standard(key: Buffer, plain: Buffer, iv = randomBytes(16), autoPadding = true): string {
  const cipher = createCipheriv("aes-256-cbc", key.subarray(32), iv)
  cipher.setAutoPadding(autoPadding)
  const ct = Buffer.concat([cipher.update(plain), cipher.final()])
  return `${b64(iv)}.${b64(ct)}.${b64(tagOf(key, iv, ct))}`
}

function open(key: Buffer, parts: string): Buffer | undefined {
  const [iv, ct, tag] = parts.split(".") as [string, string, string]
  return openCbc(key, aad, al, iv, ct, tag)
}

const texts = Array.from({ length: 120 }, (_, i) => `{"n":${i},"s":"${"é".repeat(i % 7)}${"x".repeat((i * 37) % 200)}"}`)

describe("A256CBC-HS512 on long-lived ciphers", () => {
  it("seals each of many messages in a row to exactly what a fresh cipher at its IV gives", () => {
    const key = randomBytes(64)
    for (const text of texts) {
      const [iv, ct, tag] = sealCbc(key, aad, al, text).split(".") as [string, string, string]
      const ivBytes = Buffer.from(iv, "base64url")
      expect(ivBytes).toHaveLength(16)
      const fresh = createCipheriv("aes-256-cbc", key.subarray(32), ivBytes)
      const expected = Buffer.concat([fresh.update(text, "utf8"), fresh.final()])
      expect(ct).toBe(b64(expected))
      expect(tag).toBe(b64(tagOf(key, ivBytes, expected)))
    }
  })

  it("opens tokens a fresh cipher sealed and tokens it sealed itself, interleaved, each to its text", () => {
    const key = randomBytes(64)
    for (const [i, text] of texts.entries()) {
      const parts = i % 3 === 0 ? standard(key, Buffer.from(text)) : sealCbc(key, aad, al, text)
      expect(open(key, parts)?.toString("utf8")).toBe(text)
      // and what it sealed opens with a fresh decipher at the token's IV
      const [iv, ct] = sealCbc(key, aad, al, text).split(".") as [string, string]
      const fresh = createDecipheriv("aes-256-cbc", key.subarray(32), Buffer.from(iv, "base64url"))
      expect(Buffer.concat([fresh.update(Buffer.from(ct, "base64url")), fresh.final()]).toString("utf8")).toBe(text)
    }
  })

  it("answers undefined for a tag that is not the key's, or of another length, and opens the next token right", () => {
    const key = randomBytes(64)
    const parts = sealCbc(key, aad, al, texts[5] as string)
    const [iv, ct, tag] = parts.split(".") as [string, string, string]
    const flipped = Buffer.from(tag, "base64url")
    flipped[0] = (flipped[0] as number) ^ 1
    expect(openCbc(key, aad, al, iv, ct, b64(flipped))).toBeUndefined()
    expect(openCbc(key, aad, al, iv, ct, b64(Buffer.from(tag, "base64url").subarray(0, 16)))).toBeUndefined()
    expect(open(randomBytes(64), parts)).toBeUndefined()
    const otherAad = Buffer.from(aad)
    otherAad[0] = 0x41
    expect(openCbc(key, otherAad, al, iv, ct, tag)).toBeUndefined()
    expect(open(key, sealCbc(key, aad, al, "after"))?.toString()).toBe("after")
  })

  it("opens a token whose tag's last character carries unused low bits (it decodes to the same tag)", () => {
    const key = randomBytes(64)
    const [iv, ct, tag] = sealCbc(key, aad, al, "loose tag").split(".") as [string, string, string]
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    const loose = tag.slice(0, 42) + alphabet[alphabet.indexOf(tag.charAt(42)) | 3]
    expect(Buffer.from(loose, "base64url").equals(Buffer.from(tag, "base64url"))).toBe(true)
    expect(openCbc(key, aad, al, iv, ct, loose)?.toString()).toBe("loose tag")
    // a change in a bit that counts is refused
    const changed = tag.slice(0, 42) + alphabet[alphabet.indexOf(tag.charAt(42)) ^ 4]
    expect(openCbc(key, aad, al, iv, ct, changed)).toBeUndefined()
  })

  it("throws for a right tag over a ciphertext that is not whole blocks or has bad padding", () => {
    const key = randomBytes(64)
    const iv = randomBytes(16)
    const short = randomBytes(20)
    expect(() => open(key, `${b64(iv)}.${b64(short)}.${b64(tagOf(key, iv, short))}`)).toThrow(CbcDecryptionFailed)
    expect(() => open(key, `${b64(iv)}..${b64(tagOf(key, iv, Buffer.alloc(0)))}`)).toThrow(CbcDecryptionFailed)
    for (const last of [0, 17, 0xff]) {
      const block = Buffer.alloc(32, 3)
      block[31] = last
      expect(() => open(key, standard(key, block, randomBytes(16), false))).toThrow(CbcDecryptionFailed)
    }
    // padding 4 with one wrong byte among the four
    const uneven = Buffer.alloc(32, 4)
    uneven[29] = 5
    expect(() => open(key, standard(key, uneven, randomBytes(16), false))).toThrow(CbcDecryptionFailed)
    // a full padding block is fine
    expect(open(key, standard(key, Buffer.alloc(16, 7)))?.equals(Buffer.alloc(16, 7))).toBe(true)
    expect(open(key, sealCbc(key, aad, al, "still in step"))?.toString()).toBe("still in step")
  })

  it("seals and opens messages larger than the kept input buffer", () => {
    const key = randomBytes(64)
    const big = "y".repeat(100_000)
    expect(open(key, sealCbc(key, aad, al, big))?.toString()).toBe(big)
    expect(open(key, standard(key, Buffer.from(big)))?.toString()).toBe(big)
    expect(open(key, sealCbc(key, aad, al, "small"))?.toString()).toBe("small")
  })
})
