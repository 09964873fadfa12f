/**
 * The email code provider is the proof that a whole flow can be written with the public kit: every file
 * of src/providers/email-code imports only its own folder, the kit (`authchart/flow`), other public
 * modules (those package.json exports), Node built-ins and the package's declared dependencies.
 */
import { readFileSync, readdirSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { publicModules } from "../scripts/exports.mjs"
import { repoRoot } from "./support/packed.js"

const folder = join(repoRoot, "src/providers/email-code")
const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}
const packages = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)])
const publicFiles = new Set((publicModules(repoRoot) as [string, string][]).map(([, module]) => `src/${module}.ts`))

/** Every module specifier of a source file: static imports and exports, and dynamic `import()`. */
function specifiers(source: string): string[] {
  const found = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']/g)].map((m) => m[1] as string)
  const bare = [...source.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)].map((m) => m[1] as string)
  const dynamic = [...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] as string)
  return [...found, ...bare, ...dynamic]
}

/** Why an import is not allowed, or null when it is. */
function refusal(file: string, specifier: string): string | null {
  if (specifier.startsWith("node:")) return null
  if (!specifier.startsWith(".")) {
    const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] as string)
    return packages.has(name) ? null : `${specifier}: not a dependency of the package`
  }
  const target = relative(repoRoot, resolve(dirname(file), specifier)).replace(/\.js$/, ".ts")
  if (target.startsWith("src/providers/email-code/")) return null
  if (target === "src/flow/index.ts" || publicFiles.has(target)) return null
  return `${specifier} (${target}): an internal module`
}

describe("src/providers/email-code imports only the public kit and public modules", () => {
  const files = readdirSync(folder).filter((name) => name.endsWith(".ts"))

  it("has its files (the check below is not vacuous)", () => {
    expect(files).toEqual(expect.arrayContaining(["index.ts", "machine.ts", "effects.ts", "page.ts"]))
  })

  it.each(files)("%s", (name) => {
    const file = join(folder, name)
    const refused = specifiers(readFileSync(file, "utf8"))
      .map((specifier) => refusal(file, specifier))
      .filter((reason) => reason !== null)
    expect(refused).toEqual([])
  })

  it("the check refuses an internal module and an undeclared package", () => {
    const file = join(folder, "effects.ts")
    expect(refusal(file, "../../runtime/engine/effects/tail.js")).toBe(
      "../../runtime/engine/effects/tail.js (src/runtime/engine/effects/tail.ts): an internal module",
    )
    expect(refusal(file, "left-pad")).toBe("left-pad: not a dependency of the package")
    expect(refusal(file, "../../flow/index.js")).toBeNull()
    expect(refusal(file, "../nodemailer.js")).toBeNull()
  })
})
