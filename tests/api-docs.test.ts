/**
 * Every public export has a doc comment: what each module in package.json's `exports` exports (followed
 * through re-exports to its declaration) carries TSDoc, which the API reference (`npm run docs`,
 * TypeDoc) shows. A module's default export may be documented by the module's header comment, as the
 * provider presets are (the header describes the function; TypeDoc's run copies it onto the function).
 * The compiler API answers this in a few seconds, where a TypeDoc conversion takes far longer.
 */
import { join } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { publicModules } from "../scripts/exports.mjs"
import { repoRoot } from "./support/packed.js"

/** `[module, export name]` of every public export without a doc comment. */
function undocumentedExports(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(repoRoot, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"))
      },
    },
  )
  if (!parsed) throw new Error("tsconfig.build.json did not parse")
  const entries = publicModules(repoRoot).map(([subpath, module]) => ({ subpath, file: join(repoRoot, "src", `${module}.ts`) }))
  const program = ts.createProgram({
    rootNames: entries.map((e) => e.file),
    options: { ...parsed.options, noEmit: true, skipLibCheck: true },
  })
  const checker = program.getTypeChecker()
  const missing: string[] = []
  for (const { subpath, file } of entries) {
    const source = program.getSourceFile(file)
    const moduleSymbol = source && checker.getSymbolAtLocation(source)
    if (!source || !moduleSymbol) throw new Error(`${file} is not a module`)
    const header = source.statements[0] ? ts.getJSDocCommentsAndTags(source.statements[0]).length > 0 : false
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      const documented = (symbol.getDeclarations() ?? []).some((declaration) => ts.getJSDocCommentsAndTags(declaration).length > 0)
      if (documented || (exported.name === "default" && header)) continue
      missing.push(`authchart${subpath.slice(1)}: ${exported.name}`)
    }
  }
  return missing
}

describe("the public API", () => {
  it("every export of every public module has a doc comment", () => {
    expect(undocumentedExports()).toEqual([])
  }, 60_000)
})
