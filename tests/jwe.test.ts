/**
 * Sealed values as jose reads and writes them (src/runtime/crypto/sealed.ts): every token is the standard
 * A256CBC-HS512 a fresh cipher gives (RFC 7518 §5.2.2), what a standard sealer made opens, and a changed
 * tag, ciphertext, header, key or padding is refused with jose's errors.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto"
import { errors } from "jose"
import { describe, expect, it } from "vitest"
import { decryptJwt, deriveKey, derivedKeysKept, encryptJson, encryptJwt } from "../src/runtime/crypto/sealed.js"

const SECRET = "open-secret-0123456789abcdefghijklmnopq"
const OTHER = "other-secret-0123456789abcdefghijklmnop"
const SALT = "authjs.session-token"
const exp = () => Math.floor(Date.now() / 1000) + 600
const b64 = (b: Buffer | Uint8Array) => Buffer.from(b).toString("base64url")
const keyOf = (secret: string) => Buffer.from(hkdfSync("sha256", secret, SALT, `Auth.js Generated Encryption Key (${SALT})`, 64))

/** The tag of RFC 7518 §5.2.2.1: HMAC-SHA-512 over AAD ‖ IV ‖ ciphertext ‖ AL, its first 32 bytes. */
function tagOf(key: Buffer, header: string, iv: Buffer, ct: Buffer): Buffer {
  const al = Buffer.alloc(8)
  al.writeBigUInt64BE(BigInt(header.length * 8))
  return createHmac("sha512", key.subarray(0, 32))
    .update(Buffer.concat([Buffer.from(header, "latin1"), iv, ct, al]))
    .digest()
    .subarray(0, 32)
}

/** A token made the standard way: a fresh cipher at a random IV (padding as given). */
function standard(key: Buffer, header: string, plain: Buffer, autoPadding = true): string {
  const iv = randomBytes(16)
  const cipher = createCipheriv("aes-256-cbc", key.subarray(32), iv)
  cipher.setAutoPadding(autoPadding)
  const ct = Buffer.concat([cipher.update(plain), cipher.final()])
  return [header, "", b64(iv), b64(ct), b64(tagOf(key, header, iv, ct))].join(".")
}

const edit = (token: string, part: number, f: (s: string) => string) => {
  const parts = token.split(".")
  parts[part] = f(parts[part] as string)
  return parts.join(".")
}

const texts = Array.from({ length: 40 }, (_, i) => ({ n: i, s: `${"é".repeat(i % 7)}${"x".repeat((i * 37) % 200)}`, exp: exp() }))

describe("sealed values (jose, A256CBC-HS512)", () => {
  it("writes each of many tokens in a row as exactly what a fresh cipher at its IV gives, with Auth.js' header", async () => {
    const key = keyOf(SECRET)
    const { kid } = await deriveKey(SECRET, SALT, "A256CBC-HS512")
    for (const claims of texts) {
      const token = await encryptJwt(claims, SECRET, SALT)
      const [header, encryptedKey, iv, ct, tag] = token.split(".") as [string, string, string, string, string]
      expect(JSON.parse(Buffer.from(header, "base64url").toString())).toEqual({ alg: "dir", enc: "A256CBC-HS512", kid })
      expect(encryptedKey).toBe("")
      const ivBytes = Buffer.from(iv, "base64url")
      expect(ivBytes).toHaveLength(16)
      const fresh = createDecipheriv("aes-256-cbc", key.subarray(32), ivBytes)
      const plain = Buffer.concat([fresh.update(Buffer.from(ct, "base64url")), fresh.final()])
      expect(JSON.parse(plain.toString("utf8"))).toEqual(claims)
      expect(tag).toBe(b64(tagOf(key, header, ivBytes, Buffer.from(ct, "base64url"))))
    }
  })

  it("opens tokens a standard sealer made, each to its claims, under the key the kid names", async () => {
    const key = keyOf(SECRET)
    const { kid } = await deriveKey(SECRET, SALT, "A256CBC-HS512")
    const header = b64(Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid })))
    for (const claims of texts) {
      expect(await decryptJwt(standard(key, header, Buffer.from(JSON.stringify(claims))), [OTHER, SECRET], SALT)).toEqual(claims)
    }
  })

  it("opens a second token of the same header, and refuses one whose ciphertext or tag was changed", async () => {
    const first = await encryptJwt({ sub: "a", exp: exp() }, SECRET, SALT)
    const second = await encryptJwt({ sub: "b", exp: exp() }, SECRET, SALT)
    expect(first.split(".")[0]).toBe(second.split(".")[0])
    expect((await decryptJwt(first, [SECRET], SALT)).sub).toBe("a")
    expect((await decryptJwt(second, [SECRET], SALT)).sub).toBe("b")
    const flipped = edit(second, 3, (s) => {
      const ct = Buffer.from(s, "base64url")
      ct[0] = (ct[0] as number) ^ 1
      return b64(ct)
    })
    await expect(decryptJwt(flipped, [SECRET], SALT)).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    // another token's tag on this token
    const swapped = edit(second, 4, () => first.split(".")[4] as string)
    await expect(decryptJwt(swapped, [SECRET], SALT)).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
  })

  it("refuses a tag that is not the key's or of another length, another key, and another header (AAD)", async () => {
    const token = await encryptJwt({ sub: "a", exp: exp() }, SECRET, SALT)
    const tag = Buffer.from(token.split(".")[4] as string, "base64url")
    const flippedTag = Buffer.from(tag)
    flippedTag[0] = (flippedTag[0] as number) ^ 1
    await expect(
      decryptJwt(
        edit(token, 4, () => b64(flippedTag)),
        [SECRET],
        SALT,
      ),
    ).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    await expect(
      decryptJwt(
        edit(token, 4, () => b64(tag.subarray(0, 16))),
        [SECRET],
        SALT,
      ),
    ).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    // the kid names no configured secret
    await expect(decryptJwt(token, [OTHER], SALT)).rejects.toThrow("no matching decryption secret")
    const header = JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString())
    const otherKid = b64(Buffer.from(JSON.stringify({ ...header, kid: `${header.kid}x` })))
    await expect(
      decryptJwt(
        edit(token, 0, () => otherKid),
        [SECRET],
        SALT,
      ),
    ).rejects.toThrow("no matching decryption secret")
    // the same key without kid, but the tag was made over the original header
    const noKid = b64(Buffer.from(JSON.stringify({ alg: header.alg, enc: header.enc })))
    await expect(
      decryptJwt(
        edit(token, 0, () => noKid),
        [SECRET],
        SALT,
      ),
    ).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    // no kid and no secret opens it: every secret is tried, the answer is the first failure
    const keyless = standard(keyOf(SECRET), noKid, Buffer.from('{"sub":"nokid"}'))
    expect(await decryptJwt(keyless, [OTHER, SECRET], SALT)).toEqual({ sub: "nokid" })
    await expect(decryptJwt(keyless, [OTHER], SALT)).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    await expect(decryptJwt(keyless, [], SALT)).rejects.toThrow("no matching decryption secret")
  })

  it("opens a token whose tag's last character carries unused low bits (it decodes to the same tag)", async () => {
    const token = await encryptJwt({ sub: "loose", exp: exp() }, SECRET, SALT)
    const tag = token.split(".")[4] as string
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    const loose = tag.slice(0, 42) + alphabet[alphabet.indexOf(tag.charAt(42)) | 3]
    expect(Buffer.from(loose, "base64url").equals(Buffer.from(tag, "base64url"))).toBe(true)
    expect(
      (
        await decryptJwt(
          edit(token, 4, () => loose),
          [SECRET],
          SALT,
        )
      ).sub,
    ).toBe("loose")
    // a change in a bit that counts is refused
    const changed = tag.slice(0, 42) + alphabet[alphabet.indexOf(tag.charAt(42)) ^ 4]
    await expect(
      decryptJwt(
        edit(token, 4, () => changed),
        [SECRET],
        SALT,
      ),
    ).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
  })

  it("refuses a right tag over a ciphertext that is not whole blocks or has bad padding", async () => {
    const key = keyOf(SECRET)
    const header = b64(Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512" })))
    const iv = randomBytes(16)
    const short = randomBytes(20)
    const refused = (token: string) => expect(decryptJwt(token, [SECRET], SALT)).rejects.toBeInstanceOf(errors.JWEDecryptionFailed)
    await refused([header, "", b64(iv), b64(short), b64(tagOf(key, header, iv, short))].join("."))
    await refused([header, "", b64(iv), "", b64(tagOf(key, header, iv, Buffer.alloc(0)))].join("."))
    for (const last of [0, 17, 0xff]) {
      const block = Buffer.alloc(32, 3)
      block[31] = last
      await refused(standard(key, header, block, false))
    }
    // padding 4 with one wrong byte among the four
    const uneven = Buffer.alloc(32, 4)
    uneven[29] = 5
    await refused(standard(key, header, uneven, false))
    // a full padding block is fine
    const whole = Buffer.concat([Buffer.from('{"sub":"whole-block-ok"}'), Buffer.alloc(8, 0x20)])
    expect(await decryptJwt(standard(key, header, whole), [SECRET], SALT)).toEqual({ sub: "whole-block-ok" })
  })

  it("seals a flow envelope (encryptJson) with A256GCM under its 32-byte key's kid; a changed tag or an A256CBC-HS512 envelope of before still reads as before", async () => {
    const { kid } = await deriveKey(SECRET, SALT, "A256GCM")
    const envelope = { v: 1, flow: "oauth", exp: exp() }
    const sealed = await encryptJson(envelope, SECRET, SALT)
    const [header, encryptedKey, iv, , tag] = sealed.split(".") as [string, string, string, string, string]
    expect(JSON.parse(Buffer.from(header, "base64url").toString())).toEqual({ alg: "dir", enc: "A256GCM", kid })
    expect(encryptedKey).toBe("")
    expect(Buffer.from(iv, "base64url")).toHaveLength(12)
    expect(Buffer.from(tag, "base64url")).toHaveLength(16)
    expect(await decryptJwt(sealed, [OTHER, SECRET], SALT)).toEqual(envelope)
    const parts = sealed.split(".")
    const flipped = [...parts.slice(0, 4), `${tag.startsWith("A") ? "B" : "A"}${tag.slice(1)}`].join(".")
    expect(parts).toHaveLength(5)
    await expect(decryptJwt(flipped, [SECRET], SALT)).rejects.toThrow()
    // an envelope sealed before the switch (A256CBC-HS512, the 64-byte key) still opens: flows in flight survive the deploy
    const before = await encryptJwt(envelope, SECRET, SALT)
    expect(await decryptJwt(before, [SECRET], SALT)).toEqual(envelope)
  })

  it("seals and opens values larger than 64 KiB, as JWT claims and as JSON", async () => {
    const big = "y".repeat(100_000)
    expect((await decryptJwt(await encryptJwt({ big, exp: exp() }, SECRET, SALT), [SECRET], SALT)).big).toBe(big)
    expect((await decryptJwt(await encryptJson({ big, exp: exp() }, SECRET, SALT), [SECRET], SALT)).big).toBe(big)
  })

  it("derives each key once and keeps at most 256 of them", async () => {
    expect(await deriveKey(SECRET, SALT, "A256CBC-HS512")).toBe(await deriveKey(SECRET, SALT, "A256CBC-HS512"))
    for (let i = 0; i < 300; i++) {
      const secret = `${SECRET}-${i}`
      expect((await decryptJwt(await encryptJwt({ sub: String(i), exp: exp() }, secret, SALT), [secret], SALT)).sub).toBe(String(i))
      expect(derivedKeysKept()).toBeLessThanOrEqual(256)
    }
    expect(derivedKeysKept()).toBeGreaterThan(0)
    await expect(deriveKey("", SALT, "A256CBC-HS512")).rejects.toThrow('"ikm" must be at least one byte in length')
  })
})
