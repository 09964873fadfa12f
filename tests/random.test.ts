import { describe, expect, it } from "vitest"
import { randomBytes, randomInto } from "../src/runtime/crypto/random.js"

// The batched random pool every IV, nonce, challenge and token is cut from: no two draws may share
// bytes (a repeated IV or challenge), across refills of the pool too.

describe("the random pool", () => {
  it("never hands out the same bytes twice, across several refills", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 2000; i++) seen.add(randomBytes(16).toString("hex"))
    for (let i = 0; i < 2000; i++) {
      const target = Buffer.alloc(16)
      randomInto(target, 0, 16)
      seen.add(target.toString("hex"))
    }
    expect(seen.size).toBe(4000)
  })

  it("randomInto writes exactly the bytes it is asked for, where it is asked", () => {
    const target = Buffer.alloc(64, 0xaa)
    for (let i = 0; i < 50; i++) {
      randomInto(target, 20, 16)
      expect(target.subarray(0, 20).every((b) => b === 0xaa)).toBe(true)
      expect(target.subarray(36).every((b) => b === 0xaa)).toBe(true)
    }
    // 16 random bytes are all 0xaa with probability 2^-128: the slot was written
    expect(target.subarray(20, 36).every((b) => b === 0xaa)).toBe(false)
  })

  it("serves large draws outside the pool and refuses a randomInto larger than a quarter of it", () => {
    const big = randomBytes(5000)
    expect(big).toHaveLength(5000)
    expect(big.equals(Buffer.alloc(5000))).toBe(false)
    expect(() => randomInto(Buffer.alloc(2048), 0, 2048)).toThrow(RangeError)
  })
})
