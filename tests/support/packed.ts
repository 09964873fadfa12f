/**
 * The published package as another project sees it: `npm pack` (which builds in `prepack`) into a
 * temporary directory, the tarball unpacked into a fresh project's `node_modules/authchart`, and the
 * packages that project needs linked from this repository's `node_modules` (nothing is downloaded).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export const repoRoot = resolve(import.meta.dirname, "../..")

export interface PackedProject {
  /** The `.tgz` file `npm pack` wrote. */
  tarball: string
  /** The project directory (`type: module`), with `node_modules/authchart` unpacked from the tarball. */
  app: string
  /** `node_modules/authchart` inside `app`. */
  pkgDir: string
  /** The unpacked package's manifest. */
  manifest: { dependencies: Record<string, string>; exports: Record<string, unknown>; files: string[] }
  /** Every path inside the tarball (`package/...`). */
  listing: string[]
  /** Links more packages of this repository's node_modules into the project (a user's own installs). */
  link(...packages: string[]): void
  /** Runs `node` on a script written into the project, returning stdout. */
  runScript(name: string, source: string): string
  remove(): void
}

/** Packs this repository and installs the tarball, with its dependencies, into a new temporary project. */
export function packIntoProject(): PackedProject {
  const work = mkdtempSync(join(tmpdir(), "authchart-pack-"))
  const out = execFileSync("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: repoRoot, encoding: "utf8" })
  const tarball = join(work, out.trim().split("\n").pop() ?? "")
  const app = join(work, "app")
  const pkgDir = join(app, "node_modules", "authchart")
  mkdirSync(pkgDir, { recursive: true })
  execFileSync("tar", ["-xzf", tarball, "-C", pkgDir, "--strip-components=1"])
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as PackedProject["manifest"]
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module", private: true }))
  const link = (...packages: string[]): void => {
    for (const name of packages) {
      const target = join(app, "node_modules", name)
      if (existsSync(target)) continue
      mkdirSync(dirname(target), { recursive: true })
      symlinkSync(join(repoRoot, "node_modules", name), target, "dir")
    }
  }
  link(...Object.keys(manifest.dependencies))
  const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n")
  return {
    tarball,
    app,
    pkgDir,
    manifest,
    listing,
    link,
    runScript(name, source) {
      writeFileSync(join(app, name), source)
      return execFileSync(process.execPath, [name], { cwd: app, encoding: "utf8" })
    },
    remove: () => rmSync(work, { recursive: true, force: true }),
  }
}
