/**
 * Test files share their worker's modules unless `tests/setup/isolated-files.ts` lists them. A file that
 * mocks a package for the whole file, runs `@auth/core`'s `Auth`, or sets the clock and leaves it set,
 * changes state another file would then see: each such file must be listed, and each listed file must still be one.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"
import { ISOLATED } from "./setup/isolated-files.js"

/** Why a test file needs a module graph of its own, or undefined. */
function needsIsolation(source: string): string | undefined {
  if (/\bvi\.(?:mock|doMock|resetModules)\(/.test(source)) return "mocks a module"
  if (/import\s*\{[^}]*\bAuth\b[^}]*\}\s*from\s*"@auth\/core"/.test(source)) return "runs @auth/core's Auth"
  // Auth.js' suite (tests/authjs-suite) sets the clock through its `getExpires` and never puts it back
  if (/\b(?:vi\.setSystemTime|getExpires)\(/.test(source) && !/\bvi\.useRealTimers\(/.test(source)) return "leaves the clock set"
  return undefined
}

const testFiles = readdirSync(join(repoRoot, "tests"), { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `tests/${name}`)
  // this file names the patterns it looks for
  .filter((file) => file !== "tests/isolation.test.ts")

describe("test isolation", () => {
  it("every file that mocks a module or runs @auth/core's Auth is isolated", () => {
    const missing = testFiles.filter((file) => needsIsolation(readFileSync(join(repoRoot, file), "utf8")) && !ISOLATED.includes(file))
    expect(missing).toEqual([])
  })

  it("every isolated file exists and still needs it", () => {
    const stale = ISOLATED.filter((file) => !testFiles.includes(file) || !needsIsolation(readFileSync(join(repoRoot, file), "utf8")))
    expect(stale).toEqual([])
  })

  it("the check tells the kinds apart", () => {
    expect(needsIsolation('vi.mock("nodemailer", () => ({}))')).toBe("mocks a module")
    expect(needsIsolation('import { Auth as AuthJs, type AuthConfig } from "@auth/core"')).toBe("runs @auth/core's Auth")
    expect(needsIsolation('import { encode } from "@auth/core/jwt"')).toBeUndefined()
    expect(needsIsolation('import GitHub from "@auth/core/providers/github"')).toBeUndefined()
    expect(needsIsolation("const expires = getExpires()")).toBe("leaves the clock set")
    expect(needsIsolation("vi.setSystemTime(0)\nvi.useRealTimers()")).toBeUndefined()
  })
})
