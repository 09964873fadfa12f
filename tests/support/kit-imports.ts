/**
 * What a flow's source file may import to count as written with the public kit: Node built-ins, the
 * package's declared dependencies (and the package itself), the kit (`src/flow/index.ts`), other public
 * modules (package.json's exports), names one of those exports wherever they are declared, and the
 * flow's own files.
 */
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { publicModules } from "../../scripts/exports.mjs"
import { repoRoot } from "./packed.js"

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}
const packages = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)])
const publicFiles = new Set((publicModules(repoRoot) as [string, string][]).map(([, module]) => `src/${module}.ts`))

/** One import of a source file: its specifier and the names it takes (`*` for a namespace or a bare import). */
export interface ImportOf {
  readonly specifier: string
  readonly names: readonly string[]
}

const NAMED =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}|\*\s+as\s+[\w$]+|\*)?\s*from\s*["']([^"']+)["']/g

/** Every import of a source file: static imports and re-exports (with their names), bare and dynamic imports. */
export function importsOf(source: string): ImportOf[] {
  const named = [...source.matchAll(NAMED)].map((m) => {
    const list = (m[2] ?? "")
      .split(",")
      .map(
        (part) =>
          part
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0] as string,
      )
      .filter(Boolean)
    const names = m[1] ? [m[1], ...list] : list
    return { specifier: m[3] as string, names: m[2] === undefined ? ["*"] : names }
  })
  const bare = [...source.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)].map((m) => ({ specifier: m[1] as string, names: ["*"] }))
  const dynamic = [...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => ({ specifier: m[1] as string, names: ["*"] }))
  return [...named, ...bare, ...dynamic]
}

/** The names a module exports: its own declarations, and what it re-exports (`export *` followed). */
function exportedNames(path: string, seen = new Set<string>()): string[] {
  if (seen.has(path)) return []
  seen.add(path)
  const source = readFileSync(join(repoRoot, path), "utf8")
  const declared = [
    ...source.matchAll(
      /(?:^|\n)export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:const|let|function\*?|class|interface|type|enum)\s+([\w$]+)/g,
    ),
  ].map((m) => m[1] as string)
  const again = importsOf(source)
    .filter(
      (i) =>
        source.includes(`from "${i.specifier}"`) &&
        new RegExp(`export[^;]*?from\\s*["']${i.specifier.replace(/[.]/g, "\\.")}["']`).test(source),
    )
    .flatMap((i) => {
      if (!i.names.includes("*")) return [...i.names]
      const target = relative(repoRoot, resolve(dirname(join(repoRoot, path)), i.specifier)).replace(/\.js$/, ".ts")
      return i.specifier.startsWith(".") ? exportedNames(target, seen) : []
    })
  const listed = [...source.matchAll(/(?:^|\n)export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] as string).split(",").map(
      (part) =>
        part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)
          .pop() as string,
    ),
  )
  return [...declared, ...again, ...listed.filter(Boolean)]
}

/** The names `authchart/flow` exports. */
export const kitNames: ReadonlySet<string> = new Set(exportedNames("src/flow/index.ts"))

/** The names the other public modules export (`authchart`, `authchart/providers/*`, …). */
const publicNames: ReadonlySet<string> = new Set([...publicFiles].flatMap((file) => exportedNames(file)))

/**
 * Why an import of `file` is not allowed, or null when it is. `own` says which repository files (paths
 * from the root, e.g. `src/providers/email-code/index.ts`) belong to the flow itself.
 */
export function refusal(file: string, { specifier, names }: ImportOf, own: (target: string) => boolean): string | null {
  if (specifier.startsWith("node:")) return null
  if (!specifier.startsWith(".")) {
    const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] as string)
    return packages.has(name) || name === "authchart" ? null : `${specifier}: not a dependency of the package`
  }
  const target = relative(repoRoot, resolve(dirname(file), specifier)).replace(/\.js$/, ".ts")
  if (own(target) || target === "src/flow/index.ts" || publicFiles.has(target)) return null
  const internal = names.filter((name) => name === "*" || !(kitNames.has(name) || publicNames.has(name)))
  return internal.length === 0 ? null : `${specifier} (${target}): ${internal.join(", ")} not in the kit`
}

/** The refused imports of one file. */
export function refusedImports(file: string, own: (target: string) => boolean): string[] {
  return importsOf(readFileSync(file, "utf8"))
    .map((i) => refusal(file, i, own))
    .filter((reason): reason is string => reason !== null)
}
