#!/usr/bin/env node
// `npm run exports`: rewrites the `exports` of package.json from the public modules in src/.
//
// A module is public when the example in its header comment imports it by its package subpath, and
// that subpath names the file: `src/providers/google.ts` is `authchart/providers/google` when its
// header shows `from "authchart/providers/google"`; `src/integration/express.ts` may be
// `authchart/express` (a suffix of its path), `src/inspect/index.ts` is `authchart/inspect`.
// `src/index.ts` is the package root. Everything else (types-only helpers, codecs, runtime internals)
// is unreachable from outside. tests/exports.test.ts fails when package.json and this list disagree.
import { readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"

const HEADER = /^\s*\/\*\*([\s\S]*?)\*\//
const SUBPATH = /from\s+["']authchart\/([\w./-]+)["']/g

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })
}

/** The public modules of the package at `root`: `[subpath, module path under src without .ts]`, sorted. */
export function publicModules(root) {
  const src = join(root, "src")
  const claimed = new Map([[".", "index"]])
  for (const file of sourceFiles(src)) {
    const module = relative(src, file).split(sep).join("/").replace(/\.ts$/, "")
    const name = module.replace(/\/index$/, "")
    const header = HEADER.exec(readFileSync(file, "utf8"))?.[1] ?? ""
    for (const [, subpath] of header.matchAll(SUBPATH)) {
      if (name !== subpath && !name.endsWith(`/${subpath}`)) continue
      const key = `./${subpath}`
      const other = claimed.get(key)
      if (other !== undefined && other !== module) throw new Error(`Both src/${other}.ts and src/${module}.ts claim "authchart/${subpath}"`)
      claimed.set(key, module)
    }
  }
  return [...claimed].sort(([a], [b]) => (a === "." ? -1 : b === "." ? 1 : a.localeCompare(b)))
}

/** The `exports` field for the public modules of the package at `root`. */
export function exportsMap(root) {
  const map = {}
  for (const [subpath, module] of publicModules(root)) {
    // `default` as @auth/express: Node 20.19+/22.12+ let a CommonJS app `require()` these ES modules
    map[subpath] = { types: `./dist/${module}.d.ts`, import: `./dist/${module}.js`, default: `./dist/${module}.js` }
  }
  map["./package.json"] = "./package.json"
  return map
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), "../..")
  const path = join(root, "package.json")
  const manifest = JSON.parse(readFileSync(path, "utf8"))
  const before = JSON.stringify(manifest.exports)
  manifest.exports = exportsMap(root)
  if (JSON.stringify(manifest.exports) === before) {
    console.log("package.json exports are up to date")
  } else {
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`)
    console.log(`package.json exports rewritten: ${Object.keys(manifest.exports).length - 1} public modules`)
  }
}
