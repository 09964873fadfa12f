#!/usr/bin/env node
/**
 * The `authchart` command.
 *
 * ```
 * npx authchart diagrams [--out docs/flows] [--readme README.md] [--flows ./auth-flows.js] [--svg] [--check]
 * ```
 * `diagrams` writes `<out>/<flow>.mmd` (Mermaid `stateDiagram-v2`) for every built-in flow, plus the
 * flows a module exports (`--flows`: an array, or an object with `flows`, as default or named export);
 * `--readme` also rewrites the README's diagrams section, `--svg` draws `<flow>.svg` too (needs mermaid,
 * playwright-core and Chromium), and `--check` writes nothing and exits 1 when anything is stale.
 */
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import type { FlowDefinition } from "./runtime/flow.js"
import { builtInFlows } from "./runtime/flows.js"
import { flowDiagrams } from "./inspect/diagram.js"
import { currentReadmeSection, diagramFiles, readmeSection, withReadmeSection } from "./inspect/export.js"

const USAGE = `Usage: authchart diagrams [--out <dir>] [--readme <file>] [--flows <module>] [--svg] [--check]

  --out <dir>        where to write <flow>.mmd (default docs/flows)
  --readme <file>    also rewrite the diagrams section of this markdown file
  --flows <module>   add the flows a module exports (array, or { flows }) to the built-in ones
  --svg              also write <flow>.svg (needs mermaid, playwright-core and Chromium)
  --check            write nothing; exit 1 if a file is missing or stale`

function isFlow(value: unknown): value is FlowDefinition {
  return typeof value === "object" && value !== null && typeof (value as FlowDefinition).id === "string" && "machine" in value
}

async function moduleFlows(specifier: string): Promise<FlowDefinition[]> {
  const mod = (await import(pathToFileURL(resolve(specifier)).href)) as Record<string, unknown>
  for (const candidate of [mod.flows, mod.default, (mod.default as { flows?: unknown } | undefined)?.flows]) {
    if (Array.isArray(candidate) && candidate.every(isFlow)) return candidate
  }
  throw new Error(`${specifier} exports no flows (an array of defineFlow(...) results, or { flows })`)
}

async function readOr(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined)
}

async function diagrams(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string", default: "docs/flows" },
      readme: { type: "string" },
      flows: { type: "string" },
      svg: { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  const all = new Map(builtInFlows.map((f) => [f.id, f] as const))
  if (values.flows) for (const flow of await moduleFlows(values.flows)) all.set(flow.id, flow)
  const flows = [...all.values()]
  const out = values.out
  const files = diagramFiles(flows)
  const stale: string[] = []
  for (const file of files) {
    const path = join(out, file.name)
    if ((await readOr(path)) === file.content) continue
    stale.push(path)
    if (!values.check) {
      await mkdir(out, { recursive: true })
      await writeFile(path, file.content)
    }
  }
  if (values.check) {
    const expected = new Set(files.map((f) => f.name))
    const present = await readdir(out).catch(() => [] as string[])
    for (const name of present) if (name.endsWith(".mmd") && !expected.has(name)) stale.push(`${join(out, name)} (no such flow)`)
  }
  if (values.readme) {
    const readme = (await readOr(values.readme)) ?? ""
    const section = readmeSection(flows)
    if (currentReadmeSection(readme) !== section) {
      stale.push(values.readme)
      if (!values.check) await writeFile(values.readme, withReadmeSection(readme, section))
    }
  }
  if (values.svg && !values.check) {
    const { renderSvgs } = await import("./inspect/svg.js")
    const svgs = await renderSvgs(flowDiagrams(flows))
    await mkdir(out, { recursive: true })
    for (const file of files) {
      const svg = svgs.get(file.name.replace(/\.mmd$/, ""))
      if (svg !== undefined) await writeFile(join(out, file.name.replace(/\.mmd$/, ".svg")), svg)
    }
  }
  if (values.check) {
    if (stale.length === 0) return 0
    console.error(`Stale flow diagrams (run \`npx authchart diagrams\`):\n${stale.map((s) => `  ${s}`).join("\n")}`)
    return 1
  }
  console.log(
    stale.length === 0
      ? `Flow diagrams up to date (${files.length} in ${out}).`
      : `Wrote ${stale.join(", ")}.`,
  )
  return 0
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === "diagrams") return diagrams(rest)
  console.error(command && command !== "--help" && command !== "-h" ? `Unknown command: ${command}\n\n${USAGE}` : USAGE)
  return command === "--help" || command === "-h" ? 0 : 1
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exitCode = 1
  },
)
