/**
 * The TypeScript snippets of README.md and the guides in docs/ as files of a user's project, type-checked
 * with `tsc` under `strict`.
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
 * The preamble is prepended to the block; errors are reported against the Markdown file's line numbers.
 * A preamble holds only imports and declarations (of the app's own functions and values, or of what an
 * earlier block on the page defined): never code the reader would need to see.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { basename, join, relative } from "node:path"
import { repoRoot } from "./packed.js"

export interface Snippet {
  /** Line of the block's first code line in its Markdown file (1-based). */
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

/**
 * Type-checks every snippet of the Markdown files `markdownPaths` (README.md and the guides in docs/) as
 * modules of the project at `app` (which has the packed package and the snippets' imports in its
 * node_modules), and the source files `alsoCheck` with them, in one `tsc` run. Returns the errors as
 * `<file relative to the repository>:<line>: ...` (those of `alsoCheck` as tsc gives them).
 */
export function typeCheckMarkdown(app: string, markdownPaths: readonly string[], alsoCheck: readonly string[] = []): string[] {
  const dir = join(app, "readme-snippets")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  const files = new Map<string, { doc: string; snippet: Snippet }>()
  for (const path of markdownPaths) {
    const doc = relative(repoRoot, path)
    const stem = doc.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")
    for (const [n, snippet] of readmeSnippets(readFileSync(path, "utf8")).entries()) {
      const name = `${stem}-${String(n + 1).padStart(2, "0")}.ts`
      files.set(name, { doc, snippet })
      const head = snippet.preamble === "" ? "" : `${snippet.preamble}\n`
      writeFileSync(join(dir, name), `${head}${snippet.code}\nexport {}\n`)
    }
  }
  for (const source of alsoCheck) copyFileSync(source, join(dir, basename(source)))
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: STRICT_NODENEXT, include: ["readme-snippets"] }))
  const run = runTsc(app)
  if (run.status === 0) return []
  return run.lines.map((error) => {
    const at = /^readme-snippets\/([\w.-]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(error)
    const found = at && files.get(at[1] ?? "")
    if (!at || !found) return error
    const { doc, snippet } = found
    const preambleLines = snippet.preamble === "" ? 0 : snippet.preamble.split("\n").length
    const line = Number(at[2]) - preambleLines
    const where = line >= 1 ? `${doc}:${snippet.line + line - 1}` : `${doc}:${snippet.line} (preamble line ${Number(at[2])})`
    return `${where}:${at[3]}: ${at[4]}`
  })
}

/** The Markdown files whose snippets are checked: README.md and every guide in docs/. */
export function documentationFiles(): string[] {
  const docs = join(repoRoot, "docs")
  const guides = readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(docs, name))
  return [join(repoRoot, "README.md"), ...guides]
}
