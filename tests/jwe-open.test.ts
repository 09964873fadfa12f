/**
 * decryptJwt keeps what it reads off a protected header per encoded header (every token of one key
 * carries the same one): a kept header still has every token's tag checked, a header that differs in
 * one byte is a header of its own, and the map is bounded.
 */
import { errors } from "jose"
import { describe, expect, it } from "vitest"
import { decryptJwt, deriveKey, encryptJwt, keptHeaders } from "../src/runtime/jwe.js"

const SECRET = "open-secret-0123456789abcdefghijklmnopq"
const SALT = "authjs.session-token"
const exp = () => Math.floor(Date.now() / 1000) + 600

describe("decryptJwt's kept headers", () => {
  it("opens a second token of the same header, and still refuses one whose ciphertext or tag was changed", () => {
    const key = deriveKey(SECRET, SALT, "A256CBC-HS512")
    const first = encryptJwt({ sub: "a", exp: exp() }, key)
    const second = encryptJwt({ sub: "b", exp: exp() }, key)
    expect(first.split(".")[0]).toBe(second.split(".")[0])
    expect(decryptJwt(first, [SECRET], SALT).payload.sub).toBe("a")
    expect(decryptJwt(second, [SECRET], SALT).payload.sub).toBe("b")
    const parts = second.split(".")
    const ciphertext = Buffer.from(parts[3] as string, "base64url")
    ciphertext[0] = (ciphertext[0] as number) ^ 1
    const flipped = [parts[0], parts[1], parts[2], ciphertext.toString("base64url"), parts[4]].join(".")
    expect(() => decryptJwt(flipped, [SECRET], SALT)).toThrow(errors.JWEDecryptionFailed)
    // another token's tag on this token
    const swapped = [parts[0], parts[1], parts[2], parts[3], first.split(".")[4]].join(".")
    expect(() => decryptJwt(swapped, [SECRET], SALT)).toThrow(errors.JWEDecryptionFailed)
  })

  it("reads a header that differs from a kept one as its own: its AAD and kid are that header's", () => {
    const key = deriveKey(SECRET, SALT, "A256CBC-HS512")
    const token = encryptJwt({ sub: "a", exp: exp() }, key)
    decryptJwt(token, [SECRET], SALT)
    const [header, ...rest] = token.split(".")
    const parsed = JSON.parse(Buffer.from(header as string, "base64url").toString())
    const otherKid = Buffer.from(JSON.stringify({ ...parsed, kid: `${parsed.kid}x` })).toString("base64url")
    // the kid names no secret
    expect(() => decryptJwt([otherKid, ...rest].join("."), [SECRET], SALT)).toThrow("no matching decryption secret")
    const noKid = Buffer.from(JSON.stringify({ alg: parsed.alg, enc: parsed.enc })).toString("base64url")
    // the same key, but the tag was made over the original header
    expect(() => decryptJwt([noKid, ...rest].join("."), [SECRET], SALT)).toThrow(errors.JWEDecryptionFailed)
  })

  it("keeps at most 64 headers", () => {
    for (let i = 0; i < 100; i++) {
      const secret = `${SECRET}-${i}`
      const token = encryptJwt({ sub: String(i), exp: exp() }, deriveKey(secret, SALT, "A256CBC-HS512"))
      expect(decryptJwt(token, [secret], SALT).payload.sub).toBe(String(i))
      expect(keptHeaders()).toBeLessThanOrEqual(64)
    }
    expect(keptHeaders()).toBeGreaterThan(0)
  })
})
