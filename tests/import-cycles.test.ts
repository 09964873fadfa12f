/**
 * No import cycles in src/: every module of the package can be loaded before the modules that import
 * it. The graph holds the imports that load code at run time: static `import`/`export ... from` of
 * relative modules. `import type` and `export type` are left out (`verbatimModuleSyntax` erases them, and
 * types may refer to each other, as `AuthConfig` and `FlowDefinition` do); so are dynamic `import()`s (they load
 * lazily, after every module has been evaluated).
 */
import { readFileSync, readdirSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"

const src = join(repoRoot, "src")

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })
}

/**
 * Whether an import or export declaration loads its module at run time: all but `import type` and
 * `export type` (under `verbatimModuleSyntax`, `import { type A }` stays as `import {}`, which loads).
 */
function loadsAtRunTime(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  return ts.isExportDeclaration(node) ? !node.isTypeOnly : !node.importClause?.isTypeOnly
}

/** The relative modules `file` loads at run time, as absolute .ts paths. */
function runTimeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const found: string[] = []
  for (const node of source.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue
    const specifier = node.moduleSpecifier
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue
    if (loadsAtRunTime(node)) found.push(resolve(dirname(file), specifier.text.replace(/\.js$/, ".ts")))
  }
  return found
}

/** Every cycle's modules (strongly connected components of more than one module, or a self-import). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string): void => {
    order.set(node, order.size)
    low.set(node, order.get(node) ?? 0)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue
      if (!order.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, order.get(next) ?? 0))
      }
    }
    if (low.get(node) !== order.get(node)) return
    const component: string[] = []
    let member: string | undefined
    do {
      member = stack.pop()
      if (member === undefined) break
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort())
  }
  for (const node of graph.keys()) if (!order.has(node)) visit(node)
  return found
}

describe("import graph of src/", () => {
  const graph = new Map(sourceFiles(src).map((file) => [file, runTimeImports(file, readFileSync(file, "utf8"))]))

  it("has no cycle", () => {
    expect(cycles(graph).map((cycle) => cycle.map((file) => relative(src, file)))).toEqual([])
  })

  it("is the real graph: the walk finds the package's modules and their imports", () => {
    expect(graph.size).toBeGreaterThan(100)
    expect(graph.get(join(src, "runtime/sessions/session.ts"))).toContain(join(src, "runtime/sessions/database.ts"))
  })

  it("finds a cycle through run-time imports, and none through type-only ones", () => {
    const a = "/m/a.ts"
    const b = "/m/b.ts"
    const imports = (file: string, text: string) => runTimeImports(file, text)
    const loop = new Map([
      [a, imports(a, 'import { b } from "./b.js"')],
      [b, imports(b, 'export { a } from "./a.js"')],
    ])
    expect(cycles(loop)).toEqual([[a, b]])
    const kept = new Map([
      [a, imports(a, 'import { b } from "./b.js"')],
      [b, imports(b, 'import { type A } from "./a.js"')],
    ])
    expect(cycles(kept)).toEqual([[a, b]])
    const typesOnly = new Map([
      [a, imports(a, 'import { b } from "./b.js"')],
      [b, imports(b, 'import type { A } from "./a.js"\nexport type { C } from "./a.js"')],
    ])
    expect(cycles(typesOnly)).toEqual([])
  })
})
