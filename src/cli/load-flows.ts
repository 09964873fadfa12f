/**
 * `--flows <module>`: the flows an application module exports. Node cannot import TypeScript by itself,
 * so a `.ts` module goes through `tsx` when the project has it installed; otherwise the error says what
 * to do instead of Node's bare "Unknown file extension".
 */
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, extname, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { FlowDefinition } from "../runtime/engine/define-flow.js"
import { CliError } from "./errors.js"

const TYPESCRIPT = new Set([".ts", ".mts", ".cts", ".tsx"])

function isFlow(value: unknown): value is FlowDefinition {
  return typeof value === "object" && value !== null && typeof (value as FlowDefinition).id === "string" && "machine" in value
}

type TsImport = (specifier: string, parent: string) => Promise<unknown>

/** tsx's `tsImport` (its ESM API, found through its exports map), when the project at `cwd` has tsx. */
async function projectTsx(cwd: string): Promise<TsImport | undefined> {
  try {
    const manifest = createRequire(join(cwd, "package.json")).resolve("tsx/package.json")
    const { exports } = JSON.parse(await readFile(manifest, "utf8")) as { exports?: Record<string, { import?: { default?: string } }> }
    const entry = exports?.["./esm/api"]?.import?.default
    if (!entry) return undefined
    const api = (await import(pathToFileURL(join(dirname(manifest), entry)).href)) as { tsImport?: TsImport }
    return typeof api.tsImport === "function" ? api.tsImport : undefined
  } catch {
    return undefined
  }
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

async function importModule(specifier: string, cwd: string): Promise<Record<string, unknown>> {
  const path = resolve(cwd, specifier)
  if (!existsSync(path)) {
    throw new CliError(`--flows ${specifier}: no such file (looked for ${path}). Give the path of the module that exports your flows.`)
  }
  const url = pathToFileURL(path).href
  if (TYPESCRIPT.has(extname(path))) {
    const tsImport = await projectTsx(cwd)
    if (tsImport) return (await tsImport(url, import.meta.url)) as Record<string, unknown>
  }
  try {
    return (await import(url)) as Record<string, unknown>
  } catch (err) {
    if (codeOf(err) !== "ERR_UNKNOWN_FILE_EXTENSION") throw err
    throw new CliError(
      [
        `--flows ${specifier}: Node cannot load ${extname(path)} files by itself. Either:`,
        "  - install tsx in this project (npm install -D tsx): authchart then loads TypeScript modules through it, or",
        `  - run the command through tsx: npx tsx node_modules/authchart/dist/cli.js diagrams --flows ${specifier} …, or`,
        "  - compile the module and pass the .js file.",
      ].join("\n"),
    )
  }
}

/**
 * The flows a module exports: `export const flows = [...]`, a default export of an array, or a default
 * `{ flows }`.
 */
export async function loadFlows(specifier: string, cwd = process.cwd()): Promise<FlowDefinition[]> {
  const mod = await importModule(specifier, cwd)
  for (const candidate of [mod.flows, mod.default, (mod.default as { flows?: unknown } | undefined)?.flows]) {
    if (Array.isArray(candidate) && candidate.every(isFlow)) return candidate
  }
  throw new CliError(
    `--flows ${specifier}: the module exports no flows. Export them as \`export const flows = [extendFlow(credentialsFlow, [...])]\` (or a default array, or a default { flows }).`,
  )
}
