/**
 * The bench loads authchart's modules by path strings (`authchart("runtime/front/auth.js")`, `load(...)`)
 * so that it can run either the build or the sources; no compiler checks those strings, so this test
 * does: each names a module of src/ that exists (a move of that module breaks the test, not the bench run).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"

const bench = join(repoRoot, "bench")
const loads = readdirSync(bench)
  .filter((name) => name.endsWith(".ts"))
  .flatMap((name) => [...readFileSync(join(bench, name), "utf8").matchAll(/\b(?:load|authchart)\("([a-z0-9/._-]+)\.js"\)/g)])
  .map((match) => match[1] as string)

describe("the bench's module paths", () => {
  it("are found in bench/", () => {
    expect(loads.length).toBeGreaterThan(10)
  })

  it.each([...new Set(loads)])("src/%s.ts exists", (path) => {
    expect(existsSync(join(repoRoot, "src", `${path}.ts`))).toBe(true)
  })
})
