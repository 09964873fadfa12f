/**
 * The public types never import the runtime: `src/types.ts` and every file under `src/types/` reach no
 * module of `src/runtime/`, not even through `import type`, directly or through the modules they import
 * (adapter and provider types, errors). The runtime imports its contracts from `src/types/`, not the reverse.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"

const src = join(repoRoot, "src")
const runtime = join(src, "runtime")

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })
}

/** Every relative module `file` names in an import, a re-export or an `import("…")` type, type-only ones included. */
function relativeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const add = (specifier: string) => {
    if (specifier.startsWith(".")) found.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
  }
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * The runtime modules reachable from `roots`, each with the chain of imports that reaches it. `read`
 * gives a module's text (the file on disk by default).
 */
function runtimeReached(roots: readonly string[], read: (file: string) => string | undefined): string[] {
  const via = new Map<string, string | undefined>(roots.map((root) => [root, undefined]))
  const queue = [...roots]
  const reached: string[] = []
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (file.startsWith(`${runtime}/`)) {
      const chain = [file]
      for (let step = via.get(file); step !== undefined; step = via.get(step)) chain.unshift(step)
      reached.push(chain.map((f) => relative(src, f)).join(" -> "))
      continue
    }
    const text = read(file)
    if (text === undefined) continue
    for (const next of relativeImports(file, text)) {
      if (via.has(next)) continue
      via.set(next, file)
      queue.push(next)
    }
  }
  return reached
}

const fromDisk = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined)
const typeRoots = [join(src, "types.ts"), ...sourceFiles(join(src, "types"))]

describe("src/types.ts and src/types/ import nothing from src/runtime/", () => {
  it("no module they reach is in the runtime", () => {
    expect(runtimeReached(typeRoots, fromDisk)).toEqual([])
  })

  it("the walk is real: it covers the contracts the runtime takes from them", () => {
    expect(typeRoots.map((f) => relative(src, f))).toEqual(
      expect.arrayContaining(["types.ts", "types/flow.ts", "types/request.ts", "types/route.ts", "types/server-state.ts"]),
    )
    expect(relativeImports(join(src, "types.ts"), readFileSync(join(src, "types.ts"), "utf8"))).toContain(join(src, "types/flow.ts"))
  })

  it("refuses a type-only import of the runtime, also through another module", () => {
    const scratch = join(src, "types/scratch.ts")
    const middle = join(src, "adapters/scratch.ts")
    const files = new Map([
      [scratch, 'import type { Middle } from "../adapters/scratch.js"'],
      [middle, 'export type Middle = import("../runtime/engine/define-flow.js").FlowDefinition'],
    ])
    expect(runtimeReached([scratch], (file) => files.get(file))).toEqual([
      "types/scratch.ts -> adapters/scratch.ts -> runtime/engine/define-flow.ts",
    ])
    const direct = new Map([[scratch, 'export type { RequestContext } from "../runtime/http/context.js"']])
    expect(runtimeReached([scratch], (file) => direct.get(file))).toEqual(["types/scratch.ts -> runtime/http/context.ts"])
  })
})
