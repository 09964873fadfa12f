/**
 * The effects and the email-code flow are typed without casts: no `x as T` and no `<T>x` in
 * src/runtime/effects/, the steps' effects and src/providers/email-code/ (read with the TypeScript compiler's own parser),
 * `as const` aside, which narrows and asserts nothing. Issue 15 took them out; this keeps them out.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"
import { castsIn } from "./support/casts.js"
import { repoRoot } from "./support/packed.js"

const folders = ["src/runtime/engine/effects", "src/providers/email-code"]

const sources = [
  ...folders.flatMap((folder) =>
    readdirSync(join(repoRoot, folder), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => relative(repoRoot, join(repoRoot, folder, name))),
  ),
  "src/runtime/engine/step-effects.ts",
]

describe("no casts in the effects and the email-code flow", () => {
  it.each(sources)("%s", (path) => {
    expect(castsIn(path, readFileSync(join(repoRoot, path), "utf8"))).toEqual([])
  })

  it("the check finds `as T` and `<T>x`, and lets `as const` and `satisfies` pass", () => {
    const source = [
      "const a = x as string",
      "const b = <number>y",
      'const c = ["GET"] as const',
      "const d = { n: 1 } satisfies { n: number }",
      "const e = (z as unknown) as Date",
    ].join("\n")
    expect(castsIn("sample.ts", source)).toEqual(["1: x as string", "2: <number>y", "5: (z as unknown) as Date", "5: z as unknown"])
  })
})
