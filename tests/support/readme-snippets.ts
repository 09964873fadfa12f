/**
 * The README's TypeScript snippets as files of a user's project, type-checked with `tsc` under `strict`.
 *
 * Every ```ts (or ```typescript) block is one module (also one indented in a list item). A snippet that assumes
 * helpers of the reader's app (a `db`, a `checkPassword`, the `app` of an earlier block) declares them
 * in a hidden preamble: an HTML comment right before the block, invisible on the rendered page (the
 * rest of the opening line is a description, the declarations start on the next line):
 *
 *     <!-- ts-preamble (the reader's own password check)
 *     declare function checkPassword(email: unknown, password: unknown): Promise<{ id: string } | null>
 *     -->
 *     ```ts
 *     ...
 *
 * The preamble is prepended to the block; errors are reported against README line numbers.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { repoRoot } from "./packed.js"

export interface Snippet {
  /** README line of the block's first code line (1-based). */
  line: number
  preamble: string
  code: string
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/
const PREAMBLE_START = /^<!--\s*ts-preamble\b(.*)$/

/** Every TypeScript block of a Markdown text, with its hidden preamble. */
export function readmeSnippets(markdown: string): Snippet[] {
  const lines = markdown.split("\n")
  const snippets: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    const opening = FENCE.exec(lines[i] ?? "")
    if (!opening) continue
    // a block may sit in a list item: its fence and lines are indented alike
    const [, indent = "", fence = "```", lang = ""] = opening
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence)
    if (end === -1) throw new Error(`README line ${i + 1}: unclosed code block`)
    if (lang === "ts" || lang === "typescript") {
      const code = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      snippets.push({ line: i + 2, preamble: preambleBefore(lines, i), code: code.join("\n") })
    }
    i = end
  }
  return snippets
}

/** The `<!-- ts-preamble ... -->` comment ending right before line `fenceIndex` (blank lines allowed). */
function preambleBefore(lines: string[], fenceIndex: number): string {
  let end = fenceIndex - 1
  while (end >= 0 && (lines[end] ?? "").trim() === "") end--
  if (!(lines[end] ?? "").trimEnd().endsWith("-->")) return ""
  let start = end
  while (start >= 0 && !PREAMBLE_START.test(lines[start] ?? "")) {
    if (start < end && (lines[start] ?? "").includes("-->")) return ""
    start--
  }
  if (start < 0) return ""
  // the opening line holds only the marker and an optional description
  const body = lines.slice(start + 1, end + 1).join("\n")
  return body.replace(/-->\s*$/, "").trim()
}

/**
 * Type-checks every snippet of `readmePath` as a module of the project at `app` (which has the packed
 * package and the snippets' imports in its node_modules), and the source files `alsoCheck` with them, in
 * one `tsc` run. Returns the errors as `README.md:<line>: ...` (those of `alsoCheck` as tsc gives them).
 */
/** The compiler options of a user's strict NodeNext project (no emit, libraries' own types unchecked). */
export const STRICT_NODENEXT = {
  strict: true,
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  noEmit: true,
  skipLibCheck: true,
} as const

/** This repository's `tsc` on the `tsconfig.json` in `cwd`: its exit status and the lines it printed. */
export function runTsc(cwd: string): { status: number | null; lines: string[] } {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc")
  const run = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], { cwd, encoding: "utf8" })
  return { status: run.status, lines: run.stdout.split("\n").filter((line) => line.trim() !== "") }
}

export function typeCheckReadme(app: string, readmePath: string, alsoCheck: readonly string[] = []): string[] {
  const snippets = readmeSnippets(readFileSync(readmePath, "utf8"))
  const dir = join(app, "readme-snippets")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  const files = new Map<string, Snippet>()
  for (const [n, snippet] of snippets.entries()) {
    const name = `snippet-${String(n + 1).padStart(2, "0")}.ts`
    files.set(name, snippet)
    const head = snippet.preamble === "" ? "" : `${snippet.preamble}\n`
    writeFileSync(join(dir, name), `${head}${snippet.code}\nexport {}\n`)
  }
  for (const source of alsoCheck) copyFileSync(source, join(dir, basename(source)))
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: STRICT_NODENEXT, include: ["readme-snippets"] }))
  const run = runTsc(app)
  if (run.status === 0) return []
  const errors = run.lines
  return errors.map((error) => {
    const at = /^readme-snippets\/(snippet-\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(error)
    const snippet = at && files.get(at[1] ?? "")
    if (!at || !snippet) return error
    const preambleLines = snippet.preamble === "" ? 0 : snippet.preamble.split("\n").length
    const line = Number(at[2]) - preambleLines
    const where = line >= 1 ? `README.md:${snippet.line + line - 1}` : `README.md:${snippet.line} (preamble line ${Number(at[2])})`
    return `${where}:${at[3]}: ${at[4]}`
  })
}
