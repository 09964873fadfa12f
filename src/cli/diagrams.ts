/**
 * `authchart diagrams`: writes `<out>/<flow>.mmd` for every built-in flow and the flows of `--flows`,
 * optionally the README section (`--readme`) and SVGs (`--svg`); `--check` writes nothing and exits 1
 * when anything is stale. Only files whose content changes are written, and the summary says which.
 */
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { builtInFlows } from "../runtime/engine/built-in-flows.js"
import { flowDiagrams } from "../inspect/diagram.js"
import { currentReadmeSection, diagramFiles, readmeSection, withReadmeSection } from "../inspect/export.js"
import { parseOptions } from "./args.js"
import { CliError } from "./errors.js"
import { loadFlows } from "./load-flows.js"

export const DIAGRAMS_USAGE = `Usage: authchart diagrams [--out <dir>] [--readme <file>] [--flows <module>] [--svg] [--check]

  --out <dir>        where to write <flow>.mmd (default docs/flows)
  --readme <file>    also rewrite the diagrams section of this markdown file
  --flows <module>   add the flows a module exports (array, or { flows }) to the built-in ones;
                     a .ts module is loaded through tsx when the project has it
  --svg              also write <flow>.svg (needs mermaid, playwright-core and a Chromium)
  --check            write nothing; exit 1 if a .mmd file or the README section is missing or stale`

const OPTIONS = {
  out: { type: "string", default: "docs/flows" },
  readme: { type: "string" },
  flows: { type: "string" },
  svg: { type: "boolean", default: false },
  check: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const

async function readOr(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined)
}

/** The command that brings the files up to date: the same options without `--check`. */
function fixCommand(args: string[]): string {
  return ["npx authchart diagrams", ...args.filter((a) => a !== "--check")].join(" ")
}

export async function diagramsCommand(args: string[]): Promise<number> {
  const values = parseOptions(args, OPTIONS, DIAGRAMS_USAGE)
  if (values.help) {
    console.log(DIAGRAMS_USAGE)
    return 0
  }
  const all = new Map(builtInFlows.map((f) => [f.id, f] as const))
  if (values.flows) for (const flow of await loadFlows(values.flows)) all.set(flow.id, flow)
  const flows = [...all.values()]
  if (values.svg && !values.check) {
    const { svgNeeds, svgNeedsMessage } = await import("../inspect/svg.js")
    const missing = svgNeedsMessage(await svgNeeds())
    if (missing) throw new CliError(`${missing}\nNothing was written.`)
  }

  const out = values.out
  const wanted: { path: string; content: string }[] = diagramFiles(flows).map((f) => ({ path: join(out, f.name), content: f.content }))
  const stale: string[] = []
  if (values.check) {
    const expected = new Set(wanted.map((f) => f.path))
    for (const name of await readdir(out).catch(() => [] as string[])) {
      const path = join(out, name)
      if (name.endsWith(".mmd") && !expected.has(path)) stale.push(`${path} (no such flow: delete it, or pass the module with --flows)`)
    }
  }
  if (values.readme) {
    const readme = (await readOr(values.readme)) ?? ""
    const section = readmeSection(flows)
    if (currentReadmeSection(readme) !== section) wanted.push({ path: values.readme, content: withReadmeSection(readme, section) })
  }
  if (values.svg && !values.check) {
    const { renderSvgs } = await import("../inspect/svg.js")
    const svgs = await renderSvgs(flowDiagrams(flows))
    for (const file of diagramFiles(flows)) {
      const svg = svgs.get(file.name.replace(/\.mmd$/, ""))
      if (svg !== undefined) wanted.push({ path: join(out, file.name.replace(/\.mmd$/, ".svg")), content: svg })
    }
  }

  const changed: string[] = []
  for (const file of wanted) if ((await readOr(file.path)) !== file.content) changed.push(file.path)
  if (values.check) {
    stale.unshift(...changed)
    if (stale.length === 0) {
      console.log(`Flow diagrams are current (${flows.length} flows in ${out}${values.readme ? ` and ${values.readme}` : ""}).`)
      return 0
    }
    console.error(`Stale flow diagrams:\n${stale.map((s) => `  ${s}`).join("\n")}\nRun \`${fixCommand(args)}\` and commit the result.`)
    return 1
  }
  if (changed.length === 0) {
    console.log(
      `Flow diagrams are already up to date (${wanted.length} files in ${out}${values.readme ? ` and ${values.readme}` : ""}); nothing written.`,
    )
    return 0
  }
  await mkdir(out, { recursive: true })
  for (const file of wanted) if (changed.includes(file.path)) await writeFile(file.path, file.content)
  const unchanged = wanted.length - changed.length
  console.log(
    [
      `Wrote ${changed.length} file${changed.length === 1 ? "" : "s"}${unchanged > 0 ? ` (${unchanged} already up to date)` : ""}:`,
      ...changed.map((path) => `  ${path}`),
      "Commit them; `npx authchart diagrams --check` (same options) fails in CI when they go stale.",
    ].join("\n"),
  )
  return 0
}
