import { createHmac, randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { constantTimeEqual, hmac, hmacKey } from "../src/runtime/crypto/digest.js"

describe("hmac", () => {
  it("gives createHmac's bytes for keys shorter than, equal to and longer than a block, and any split of the message", () => {
    for (const alg of ["sha1", "sha256", "sha512"] as const) {
      for (const keyLength of [0, 1, 32, 63, 64, 65, 127, 128, 129, 300]) {
        for (const lengths of [[], [0], [5, 0, 17], [200, 1]]) {
          const key = randomBytes(keyLength)
          const parts = lengths.map((length) => randomBytes(length))
          const expected = createHmac(alg, key)
          for (const part of parts) expected.update(part)
          expect(hmac(hmacKey(alg, key), parts).toString("hex"), `${alg}, key ${keyLength}, parts ${lengths}`).toBe(expected.digest("hex"))
        }
      }
    }
  })

  it("takes a string key as UTF-8, as createHmac does", () => {
    const secret = `sécret-ünïcode-${"x".repeat(80)}`
    expect(hmac(hmacKey("sha256", secret), [Buffer.from("ada@example.com")]).toString("base64url")).toBe(
      createHmac("sha256", secret).update("ada@example.com").digest("base64url"),
    )
  })

  it("depends on every byte of the key and of the message", () => {
    const key = hmacKey("sha512", Buffer.alloc(32, 1))
    const base = hmac(key, [Buffer.from("message")]).toString("hex")
    expect(
      hmac(hmacKey("sha512", Buffer.concat([Buffer.alloc(31, 1), Buffer.from([2])])), [Buffer.from("message")]).toString("hex"),
    ).not.toBe(base)
    expect(hmac(key, [Buffer.from("messagf")]).toString("hex")).not.toBe(base)
  })
})

describe("constantTimeEqual", () => {
  it.each([
    ["same token", "a1b2c3", "a1b2c3", true],
    ["last character differs", "a1b2c3", "a1b2c4", false],
    ["first character differs", "x1b2c3", "a1b2c3", false],
    ["a prefix", "a1b2c", "a1b2c3", false],
    ["both empty", "", "", true],
    ["non-ASCII equal", "jéton✓", "jéton✓", true],
    ["same UTF-16 length, other UTF-8 length", "é", "e", false],
  ])("%s", (_, a, b, equal) => {
    expect(constantTimeEqual(a, b)).toBe(equal)
    expect(constantTimeEqual(b, a)).toBe(equal)
  })
})
