/**
 * The package exposes its public modules by explicit subpaths, never by wildcards: package.json's
 * `exports` must equal what `npm run exports` generates from the module headers (scripts/exports.mjs),
 * and every provider preset must be one of them. tests/package.test.ts checks the packed result.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { exportsMap, publicModules } from "../scripts/exports.mjs"
import { repoRoot } from "./support/packed.js"

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> }
const subpaths = new Map(publicModules(repoRoot).map(([subpath, module]) => [module, subpath]))

describe("package exports", () => {
  it("equal the generated list of public modules (run `npm run exports` after adding one)", () => {
    expect(manifest.exports).toEqual(exportsMap(repoRoot))
    expect(Object.keys(manifest.exports).filter((key) => key.includes("*"))).toEqual([])
  })

  it("include every provider factory: a module with a default export is public", () => {
    const factories = readdirSync(join(repoRoot, "src/providers"))
      .filter((file) => file.endsWith(".ts") && /^export default /m.test(readFileSync(join(repoRoot, "src/providers", file), "utf8")))
      .map((file) => `providers/${file.slice(0, -3)}`)
    // a factory missing here needs the usual header example: import X from "authchart/providers/<name>"
    expect(factories.filter((module) => subpaths.get(module) !== `./${module}`)).toEqual([])
    expect(factories.length).toBeGreaterThan(20)
  })

  it("leave out the internal modules: shapes, codecs and the runtime", () => {
    for (const internal of ["providers/oauth-types", "providers/email-types", "providers/webauthn-types", "adapters/redis-codec"]) {
      expect([internal, subpaths.get(internal)]).toEqual([internal, undefined])
    }
    expect([...subpaths.keys()].filter((module) => /^(runtime|machines)\//.test(module))).toEqual([])
    expect(subpaths.get("integration/express")).toBe("./express")
    expect(subpaths.get("index")).toBe(".")
  })
})
