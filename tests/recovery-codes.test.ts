/**
 * Recovery codes in the server-state port (src/runtime/factors/recovery-codes.ts): ten codes, each
 * redeemed once, kept only as hashes, a new set voiding the old one.
 */
import { describe, expect, it } from "vitest"
import {
  RECOVERY_CODE_COUNT,
  issueRecoveryCodes,
  normalizeRecoveryCode,
  recoveryCodesLeft,
  redeemRecoveryCode,
} from "../src/runtime/factors/recovery-codes.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { stateKey } from "../src/runtime/limits/server-state.js"

const config = () => ({ serverState: memoryServerState() })

describe("recovery codes", () => {
  it("issues ten distinct codes of two groups of five, and keeps none of them in the clear", async () => {
    const c = config()
    const codes = await issueRecoveryCodes(c, "user-1")
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT)
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT)
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
    const stored = JSON.stringify(await c.serverState.getFields(stateKey("recovery", "user-1")))
    for (const code of codes) {
      expect(stored).not.toContain(code)
      expect(stored).not.toContain(code.replace("-", ""))
    }
    expect(await recoveryCodesLeft(c, "user-1")).toBe(10)
  })

  it("redeems each code once; the count of codes left goes down", async () => {
    const c = config()
    const codes = await issueRecoveryCodes(c, "user-1")
    expect(await redeemRecoveryCode(c, "user-1", codes[3] as string)).toBe(true)
    expect(await redeemRecoveryCode(c, "user-1", codes[3] as string)).toBe(false)
    expect(await recoveryCodesLeft(c, "user-1")).toBe(9)
    expect(await redeemRecoveryCode(c, "user-1", codes[4] as string)).toBe(true)
    expect(await recoveryCodesLeft(c, "user-1")).toBe(8)
  })

  it("a spent code stays spent after its claim has expired: its hash left the record", async () => {
    let now = Date.now()
    const c = { serverState: memoryServerState({ now: () => now }) }
    const [code, other] = await issueRecoveryCodes(c, "user-1")
    expect(await redeemRecoveryCode(c, "user-1", code as string)).toBe(true)
    now += 2 * 60 * 60 * 1000
    expect(await redeemRecoveryCode(c, "user-1", code as string)).toBe(false)
    expect(await recoveryCodesLeft(c, "user-1")).toBe(9)
    expect(await redeemRecoveryCode(c, "user-1", other as string)).toBe(true)
  })

  it("accepts a code as people type it: upper case, spaces, no dash, look-alike letters", async () => {
    const c = config()
    const [code] = await issueRecoveryCodes(c, "user-1")
    const typed = ` ${(code as string).toUpperCase().replace("-", " ").replaceAll("0", "O").replaceAll("1", "l")} `
    expect(normalizeRecoveryCode(typed)).toBe((code as string).replace("-", ""))
    expect(await redeemRecoveryCode(c, "user-1", typed)).toBe(true)
  })

  it("refuses wrong, malformed and other users' codes", async () => {
    const c = config()
    const codes = await issueRecoveryCodes(c, "user-1")
    await issueRecoveryCodes(c, "user-2")
    expect(await redeemRecoveryCode(c, "user-2", codes[0] as string)).toBe(false)
    expect(await redeemRecoveryCode(c, "user-1", "00000-00000")).toBe(false)
    for (const bad of ["", "123456", "abcde-abcd", "abcde-abcdef", "abcde-abcdu", "<script>"]) {
      expect(normalizeRecoveryCode(bad)).toBeNull()
      expect(await redeemRecoveryCode(c, "user-1", bad)).toBe(false)
    }
    expect(await redeemRecoveryCode(c, "nobody", codes[0] as string)).toBe(false)
    expect(await recoveryCodesLeft(c, "user-1")).toBe(10)
    expect(await recoveryCodesLeft(c, "nobody")).toBe(0)
  })

  it("a new set voids every code of the old one", async () => {
    const c = config()
    const old = await issueRecoveryCodes(c, "user-1")
    expect(await redeemRecoveryCode(c, "user-1", old[0] as string)).toBe(true)
    const fresh = await issueRecoveryCodes(c, "user-1")
    expect(await recoveryCodesLeft(c, "user-1")).toBe(10)
    for (const code of old.slice(1)) expect(await redeemRecoveryCode(c, "user-1", code)).toBe(false)
    expect(await redeemRecoveryCode(c, "user-1", fresh[0] as string)).toBe(true)
  })

  it("the same code redeemed many times at once wins exactly once", async () => {
    const c = config()
    const [code] = await issueRecoveryCodes(c, "user-1")
    const results = await Promise.all(Array.from({ length: 8 }, () => redeemRecoveryCode(c, "user-1", code as string)))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it("a redemption racing a new issue is refused: the old set is void from the moment the new one exists", async () => {
    const c = config()
    const old = await issueRecoveryCodes(c, "user-1")
    await Promise.all([redeemRecoveryCode(c, "user-1", old[0] as string), issueRecoveryCodes(c, "user-1")])
    // either the redemption came first (and the new set is whole) or it was refused
    const left = await recoveryCodesLeft(c, "user-1")
    expect(left).toBe(10)
    expect(await redeemRecoveryCode(c, "user-1", old[0] as string)).toBe(false)
  })
})
