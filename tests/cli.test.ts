/**
 * The `authchart` command as a user runs it: the built CLI under plain Node (`tsc` output, as in the
 * package), from a project directory. Each failure is one message that says what to do; `secret`
 * prints a usable AUTH_SECRET.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth } from "../src/index.js"
import { toMermaid } from "../src/inspect/index.js"
import { svgNeeds, svgNeedsMessage } from "../src/inspect/svg.js"
import { MIN_SECRET_LENGTH } from "../src/runtime/front/resolve.js"
import { flows as extendedFlows } from "./fixtures/extended-flow.js"

const root = resolve(import.meta.dirname, "..")
// inside the repository, so the build finds its dependencies in node_modules as an installed package does
const build = join(root, "node_modules/.cache", `authchart-cli-test-${process.pid}`)
const work = mkdtempSync(join(tmpdir(), "authchart-cli-"))
const FIXTURE = join(root, "tests/fixtures/extended-flow.ts")

// The package's JavaScript, as `npm run build` emits it; the types are checked by `npm run typecheck`, and
// the package's own build (with declarations) by tests/package.test.ts, so this build skips both.
beforeAll(() => {
  const args = ["-p", "tsconfig.build.json", "--outDir", build, "--noCheck", "--declaration", "false"]
  const tsc = spawnSync(join(root, "node_modules/.bin/tsc"), args, {
    cwd: root,
    encoding: "utf8",
  })
  expect(tsc.status, tsc.stdout).toBe(0)
}, 180_000)
afterAll(() => {
  rmSync(build, { recursive: true, force: true })
  rmSync(work, { recursive: true, force: true })
})

/** `node dist/cli.js …` in `cwd` (default: an empty project directory, no tsx there). */
function authchart(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [join(build, "cli.js"), ...args], {
    cwd: options.cwd ?? work,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    timeout: 60_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("authchart secret", () => {
  it("prints a fresh AUTH_SECRET line on stdout (32 random bytes, base64url) and the hint on stderr", async () => {
    const first = authchart(["secret"])
    const second = authchart(["secret"])
    expect(first.status).toBe(0)
    const value = /^AUTH_SECRET="([A-Za-z0-9_-]+)"\n$/.exec(first.stdout)?.[1] as string
    expect(value).toBeDefined()
    expect(Buffer.from(value, "base64url")).toHaveLength(32)
    expect(value.length).toBeGreaterThanOrEqual(MIN_SECRET_LENGTH)
    expect(second.stdout).not.toBe(first.stdout)
    expect(first.stderr).toContain("Add this line to your .env file")
    // authchart accepts it as its secret
    const csrf = await Auth(new Request("http://app.test/auth/csrf"), { secret: value, trustHost: true, providers: [] })
    expect(csrf.status).toBe(200)
  })

  it("--raw prints the value alone; an unknown option names itself and the usage", () => {
    const raw = authchart(["secret", "--raw"])
    expect(raw.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
    expect(raw.stderr).toBe("")
    const wrong = authchart(["secret", "--length", "64"])
    expect(wrong.status).toBe(1)
    expect(wrong.stderr).toContain("Unknown option '--length'")
    expect(wrong.stderr).toContain("Usage: authchart secret [--raw]")
  })
})

describe("authchart diagrams --flows", () => {
  it("a .ts module in a project without tsx: says how to load it, instead of Node's bare error", () => {
    const out = join(work, "no-tsx")
    const run = authchart(["diagrams", "--flows", FIXTURE, "--out", out])
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("Node cannot load .ts files by itself")
    expect(run.stderr).toContain("npm install -D tsx")
    expect(run.stderr).toContain("compile the module and pass the .js file")
    expect(run.stderr).not.toContain("ERR_UNKNOWN_FILE_EXTENSION")
    expect(existsSync(out)).toBe(false)
  })

  it("a .ts module in a project with tsx: loaded through it, the extended flow drawn", () => {
    const out = join(work, "with-tsx")
    const run = authchart(["diagrams", "--flows", FIXTURE, "--out", out], { cwd: root })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(readFileSync(join(out, "credentials.mmd"), "utf8")).toBe(toMermaid((extendedFlows[0] as (typeof extendedFlows)[number]).machine))
  })

  it("a missing file, or a module without flows, is named with what to give instead", () => {
    const missing = authchart(["diagrams", "--flows", "auth-flows.js"])
    expect(missing.status).toBe(1)
    expect(missing.stderr).toBe(
      `--flows auth-flows.js: no such file (looked for ${join(work, "auth-flows.js")}). Give the path of the module that exports your flows.\n`,
    )
    writeFileSync(join(work, "empty.mjs"), "export const answer = 42\n")
    const empty = authchart(["diagrams", "--flows", "empty.mjs"])
    expect(empty.status).toBe(1)
    expect(empty.stderr).toContain("--flows empty.mjs: the module exports no flows. Export them as `export const flows = [")
  })
})

describe("authchart diagrams: what it says it did", () => {
  it("lists the files it wrote, says 'up to date' only when it wrote nothing, and --check names the fix", () => {
    const out = join(work, "flows")
    const first = authchart(["diagrams", "--out", out])
    expect(first.status).toBe(0)
    expect(first.stdout).toMatch(/^Wrote 4 files:\n/)
    expect(first.stdout).toContain(`  ${join(out, "credentials.mmd")}\n`)
    expect(first.stdout).not.toContain("up to date")
    const again = authchart(["diagrams", "--out", out])
    expect(again.stdout).toBe(`Flow diagrams are already up to date (4 files in ${out}); nothing written.\n`)
    writeFileSync(join(out, "email.mmd"), "stateDiagram-v2\n")
    const check = authchart(["diagrams", "--out", out, "--check"])
    expect(check.status).toBe(1)
    expect(check.stderr).toBe(
      `Stale flow diagrams:\n  ${join(out, "email.mmd")}\nRun \`npx authchart diagrams --out ${out}\` and commit the result.\n`,
    )
    const fix = authchart(["diagrams", "--out", out])
    expect(fix.stdout).toMatch(new RegExp(`^Wrote 1 file \\(3 already up to date\\):\\n  ${join(out, "email.mmd")}\\n`))
    expect(authchart(["diagrams", "--out", out, "--check"]).status).toBe(0)
  })

  it("--svg without a Chromium: says what to install or set, before writing anything", () => {
    const out = join(work, "svg-nothing")
    const run = authchart(["diagrams", "--svg", "--out", out], { env: { CHROMIUM_PATH: join(work, "no-chromium") } })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("SVG export (--svg) needs what is missing here:")
    expect(run.stderr).toContain("set CHROMIUM_PATH to its executable")
    expect(run.stderr).toContain("Nothing was written.")
    expect(existsSync(out)).toBe(false)
  })

  it("--svg names every missing package in one install command", async () => {
    const needs = await svgNeeds({
      chromium: join(work, "no-chromium"),
      resolve: (specifier) => {
        throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: "MODULE_NOT_FOUND" })
      },
    })
    expect(needs.packages).toEqual(["mermaid", "playwright-core"])
    const message = svgNeedsMessage(needs) as string
    expect(message).toContain("  - the packages mermaid, playwright-core: npm install -D mermaid playwright-core\n")
    expect(message.split("\n")).toHaveLength(3)
    expect(svgNeedsMessage(await svgNeeds())).toBeUndefined()
  })

  it("an unknown command or option says which, with the usage", () => {
    const unknown = authchart(["diagram"])
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toMatch(/^Unknown command "diagram": use `authchart diagrams` or `authchart secret`\./)
    const option = authchart(["diagrams", "--output", "x"])
    expect(option.status).toBe(1)
    expect(option.stderr).toContain("Unknown option '--output'")
    expect(option.stderr).toContain("--out <dir>")
    expect(readdirSync(work)).not.toContain("x")
  })
})
