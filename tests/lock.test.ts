import { describe, expect, it } from "vitest"
import { withKeyLock } from "../src/runtime/engine/lock.js"

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("withKeyLock", () => {
  it("runs one holder of a key at a time, in arrival order, and other keys alongside", async () => {
    const scope = {}
    const log: string[] = []
    let inside = 0
    let most = 0
    const task = (key: string, n: number) =>
      withKeyLock(scope, key, async () => {
        inside++
        most = Math.max(most, inside)
        log.push(`${key}${n}+`)
        await tick(5)
        log.push(`${key}${n}-`)
        inside--
        if (n === 2) throw new Error("second fails")
        return n
      })
    const results = await Promise.allSettled([task("a", 1), task("a", 2), task("a", 3), task("b", 1)])
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"])
    const a = log.filter((entry) => entry.startsWith("a"))
    // a failing holder still hands the key on
    expect(a).toEqual(["a1+", "a1-", "a2+", "a2-", "a3+", "a3-"])
    // "b" did not wait for "a"
    expect(log.indexOf("b1+")).toBeLessThan(log.indexOf("a1-"))
    expect(most).toBe(2)
  })

  it("frees the key once its last holder ends: a later caller does not wait", async () => {
    const scope = {}
    await withKeyLock(scope, "k", async () => 1)
    let ran = false
    const pending = withKeyLock(scope, "k", async () => {
      ran = true
    })
    // taken at once: the body ran before the first await of the caller
    expect(ran).toBe(true)
    await pending
  })
})
