import { describe, expect, it } from "vitest"
import { KeptAnswers } from "../src/runtime/http/kept.js"

describe("KeptAnswers", () => {
  it("answers what was kept for a key, and nothing for another", () => {
    const kept = new KeptAnswers<number>(4)
    expect(kept.keep("a", 1)).toBe(1)
    expect(kept.get("a")).toBe(1)
    expect(kept.get("b")).toBeUndefined()
  })

  it("starts again once it holds its limit: never more than the limit", () => {
    const kept = new KeptAnswers<number>(3)
    for (let i = 0; i < 10; i++) {
      kept.keep(`k${i}`, i)
      expect(kept.size).toBeLessThanOrEqual(3)
    }
    // the latest answer is always there
    expect(kept.get("k9")).toBe(9)
    expect(kept.get("k0")).toBeUndefined()
  })

  it("keeps nothing for a key longer than its bound, but still returns the answer", () => {
    const kept = new KeptAnswers<string>(3, 5)
    expect(kept.keep("123456", "long")).toBe("long")
    expect(kept.get("123456")).toBeUndefined()
    expect(kept.size).toBe(0)
    kept.keep("12345", "fits")
    expect(kept.get("12345")).toBe("fits")
  })
})
