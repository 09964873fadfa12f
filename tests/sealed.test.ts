import { describe, expect, it } from "vitest"
import { openClaims, sealClaims } from "../src/runtime/crypto/sealed.js"

const A = "a".repeat(32)
const B = "b".repeat(32)
const at = (now: number, secrets: string[]) => ({ now, config: { secrets } })

/**
 * `jwe` with the first character of its ciphertext replaced by another: every bit of a character inside
 * a base64url segment is data (the last character of a segment may carry padding bits, and the old
 * edit of the tag's last two characters left one token in about a thousand unchanged).
 */
function changedCiphertext(jwe: string): string {
  const parts = jwe.split(".")
  const ciphertext = parts[3] as string
  parts[3] = `${ciphertext.startsWith("A") ? "B" : "A"}${ciphertext.slice(1)}`
  const changed = parts.join(".")
  if (changed === jwe) throw new Error("the token was not changed")
  return changed
}

describe("sealClaims / openClaims (authchart/flow)", () => {
  const now = Date.now()
  const sealing = sealClaims(at(now, [A]), { origin: "https://app.example/cb" }, "test.salt", 60)

  it("opens what it sealed, with the expiry it was given", async () => {
    const claims = await openClaims(at(now, [A]), await sealing, "test.salt")
    expect(claims?.origin).toBe("https://app.example/cb")
    expect(Number(claims?.exp) - Number(claims?.iat)).toBe(60)
  })

  it("opens after a secret rotation (the old secret is still listed)", async () => {
    expect((await openClaims(at(now, [B, A]), await sealing, "test.salt"))?.origin).toBe("https://app.example/cb")
  })

  it.each([
    ["another salt", async () => openClaims(at(now, [A]), await sealing, "other.salt")],
    ["another secret", async () => openClaims(at(now, [B]), await sealing, "test.salt")],
    ["a changed byte", async () => openClaims(at(now, [A]), changedCiphertext(await sealing), "test.salt")],
    ["not a JWE", () => openClaims(at(now, [A]), "abc.def", "test.salt")],
  ])("answers null for %s", async (_name, open) => {
    expect(await open()).toBeNull()
  })

  it("answers null once expired", async () => {
    const old = await sealClaims(at(now - 3_600_000, [A]), { origin: "x" }, "test.salt", 60)
    expect(await openClaims(at(now, [A]), old, "test.salt")).toBeNull()
  })
})
