/**
 * Installing the packed authchart next to Auth.js, as the migration guide (docs/migrating-from-authjs.md) says, with
 * real `npm install`s from the registry into temporary projects:
 *
 * - an app with `@auth/express`, `@auth/core` and `@simplewebauthn/*` 9 (Auth.js passkeys): a plain
 *   `npm install authchart` ends in ERESOLVE; the guide's commands (read from the guide itself) then
 *   install it cleanly, with one `@simplewebauthn/server` 14 for both libraries;
 * - an app without passkeys on `@auth/core` 0.41.0, Express 4.18.2 and nodemailer 6: a plain
 *   `npm install authchart` succeeds (Express updated within the app's range, nodemailer 6 accepted).
 *
 * It downloads packages, so it runs only with AUTHCHART_INSTALL_CHECK=1 (not in `npm test`).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packIntoProject, repoRoot, type PackedProject } from "./support/packed.js"

const NPM_TIMEOUT_MS = 240_000
const NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline"]

/** A new project (`type: module`) with `packages` installed from the registry. */
function legacyProject(root: string, name: string, packages: string[]): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }))
  npm(dir, ["install", ...NPM_FLAGS, ...packages], true)
  return dir
}

/** Runs npm in `dir`; answers its exit status and output (throws on failure when `mustPass`). */
function npm(dir: string, args: string[], mustPass = false): { status: number | null; output: string } {
  const run = spawnSync("npm", args, { cwd: dir, encoding: "utf8", timeout: NPM_TIMEOUT_MS })
  const output = `${run.stdout}\n${run.stderr}`
  if (mustPass && run.status !== 0) throw new Error(`npm ${args.join(" ")} failed in ${dir}:\n${output}`)
  return { status: run.status, output }
}

/** The shell block of the migration guide's steps (docs/migrating-from-authjs.md) that sets the override. */
function guideMigrationCommands(): string {
  const guide = readFileSync(join(repoRoot, "docs", "migrating-from-authjs.md"), "utf8")
  const steps = guide.split("\n## Steps\n")[1]?.split("\n## ")[0] ?? ""
  const block = [...steps.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").find((b) => b.includes("overrides"))
  if (!block) throw new Error("no sh block with the override in the migration guide's steps")
  return block.replace(/^ {3}/gm, "")
}

const versionIn = (dir: string, pkg: string): string =>
  (JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version

describe.runIf(process.env.AUTHCHART_INSTALL_CHECK === "1")("npm install authchart next to Auth.js", () => {
  let packed: PackedProject
  let work: string
  beforeAll(() => {
    packed = packIntoProject()
    work = mkdtempSync(join(tmpdir(), "authchart-install-"))
  }, 240_000)
  afterAll(() => {
    packed?.remove()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it("with Auth.js passkeys (@simplewebauthn 9): ERESOLVE, then the migration guide's commands install it", () => {
    const app = legacyProject(work, "with-passkeys", [
      "@auth/express@0.12",
      "@auth/core@0.41",
      "express@4",
      "@simplewebauthn/server@9",
      "@simplewebauthn/browser@9",
    ])
    const plain = npm(app, ["install", ...NPM_FLAGS, packed.tarball])
    expect(plain.status).not.toBe(0)
    expect(plain.output).toContain("ERESOLVE")

    const commands = guideMigrationCommands()
    expect(commands).toContain("npm install authchart")
    const script = commands.replace("npm install authchart", `npm install ${NPM_FLAGS.join(" ")} '${packed.tarball}'`)
    execFileSync("bash", ["-euo", "pipefail", "-c", script], { cwd: app, encoding: "utf8", timeout: NPM_TIMEOUT_MS })
    expect(versionIn(app, "authchart")).toBe("0.1.0")
    expect(versionIn(app, "@simplewebauthn/server")).toMatch(/^14\./)
    expect(versionIn(app, "@auth/core")).toMatch(/^0\.41\./)
    expect(npm(app, ["ls", "--all"]).status).toBe(0)
    const loaded = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const [{ ExpressAuth }, { default: Passkey }, { ExpressAuth: AuthJs }] = await Promise.all([import("authchart/express"), import("authchart/providers/passkey"), import("@auth/express")]); console.log(typeof ExpressAuth, Passkey({}).id, typeof AuthJs)',
      ],
      { cwd: app, encoding: "utf8" },
    )
    expect(loaded.trim()).toBe("function passkey function")
  }, 600_000)

  it("without passkeys, on @auth/core 0.41.0 with Express 4.18 and nodemailer 6: a plain npm install", () => {
    const app = legacyProject(work, "plain", ["@auth/express@0.12.0", "@auth/core@0.41.0", "express@4.18.2", "nodemailer@6"])
    expect(versionIn(app, "express")).toBe("4.18.2")
    npm(app, ["install", ...NPM_FLAGS, packed.tarball], true)
    expect(versionIn(app, "authchart")).toBe("0.1.0")
    expect(versionIn(app, "express")).toMatch(/^4\.(2[1-9]|[3-9]\d)\./)
    expect(versionIn(app, "nodemailer")).toMatch(/^6\./)
    expect(npm(app, ["ls", "--all"]).status).toBe(0)
  }, 600_000)
})
