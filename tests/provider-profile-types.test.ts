/**
 * Every profile type an `@auth/core/providers/<name>` preset exports (`DiscordProfile`, `GitHubEmail`, …)
 * is exported by `authchart/providers/<name>` under the same name, and the two are the same type for
 * an application: assignable both ways, with the same named fields, each required or optional alike.
 * One generated file of such checks is compiled by `tsc`; an error names the preset and the type.
 *
 * The generated files are also checked to be what `scripts/provider-profiles.mjs` writes today, so an
 * @auth/core upgrade that changes a profile fails here until the script is run again.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { authjsProvidersDirectory, exportedTypeNames, formatted, presetNames, profileSource } from "../scripts/provider-profiles.mjs"
import { repoRoot } from "./support/packed.js"
import { STRICT_NODENEXT, runTsc } from "./support/readme-snippets.js"

const directory = authjsProvidersDirectory(repoRoot)
const presets = presetNames(directory)

/** A type's fields without its index signature, modifiers kept. */
const HELPERS = `
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] }
type To<A, B> = [A] extends [B] ? true : false
type Same<A, B> = [To<A, B>, To<B, A>, To<Named<A>, Named<B>>, To<Named<B>, Named<A>>, To<keyof Named<A>, keyof Named<B>>, To<keyof Named<B>, keyof Named<A>>] extends [true, true, true, true, true, true] ? true : false
`

describe("the profile types of every preset", () => {
  it("are Auth.js' own, exported under the same names by authchart/providers/<name>", () => {
    const lines: string[] = []
    const where = new Map<number, string>()
    presets.forEach((name, i) => {
      const types = exportedTypeNames(directory, name)
      if (types.length === 0) return
      lines.push(
        `import type * as A${i} from "@auth/core/providers/${name}"`,
        `import type * as B${i} from "../../src/providers/${name}.js"`,
      )
      for (const type of types) {
        where.set(lines.length + 1, `${name}: ${type.name}`)
        lines.push(`export const check_${i}_${type.name}: Same<A${i}.${type.name}, B${i}.${type.name}> = true`)
      }
    })
    expect(where.size).toBeGreaterThan(80)
    const dir = join(repoRoot, "test-artifacts", "profile-types")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "check.ts"), `${lines.join("\n")}\n${HELPERS}`)
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { ...STRICT_NODENEXT, types: ["node"] }, files: ["check.ts"] }),
    )
    const { lines: errors } = runTsc(dir)
    const named = errors.map((error) => {
      const at = /^check\.ts\((\d+),\d+\): (.*)$/.exec(error)
      return at ? `${where.get(Number(at[1])) ?? `line ${at[1]}`}: ${at[2]}` : error
    })
    expect(named).toEqual([])
  }, 120_000)

  it("are generated from the installed @auth/core (run `npm run provider-profiles` after an upgrade)", () => {
    for (const name of presets) {
      const source = profileSource(directory, name)
      if (source === undefined) continue
      const committed = readFileSync(join(repoRoot, "src/providers/profiles", `${name}.ts`), "utf8")
      expect(committed, name).toBe(formatted(repoRoot, `src/providers/profiles/${name}.ts`, source))
    }
  }, 120_000)
})
