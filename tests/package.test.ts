/**
 * The published package: `npm pack` produces a tarball whose `exports` work from another project, that
 * exposes its public modules and nothing else, that publint and arethetypeswrong find clean, and whose
 * README snippets type-check against it under `strict`.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { publicModules } from "../scripts/exports.mjs"
import { packIntoProject, repoRoot, type PackedProject } from "./support/packed.js"
import { typeCheckReadme } from "./support/readme-snippets.js"

let packed: PackedProject
beforeAll(() => {
  packed = packIntoProject()
}, 240_000)
afterAll(() => packed?.remove())

const smokeScript = `
import { Auth, AuthError, CredentialsSignin, isAuthAction, createActionURL, setEnvDefaults, defineFlow, raw, skipCSRFCheck } from "authchart"
import { encode, decode, getToken } from "authchart/jwt"
import { ExpressAuth, getSession } from "authchart/express"
import Credentials from "authchart/providers/credentials"
import { createInspector, toMermaid } from "authchart/inspect"
import { createMachine } from "xstate"
const secret = "a-secret-for-the-package-test-0123456789"
const config = { secret, trustHost: true, providers: [Credentials({ authorize: () => ({ id: "1", name: "Pat" }) })] }
const csrf = await Auth(new Request("http://x.test/auth/csrf"), config)
const cookie = csrf.headers.getSetCookie()[0].split(";")[0]
const { csrfToken } = await csrf.json()
const signIn = await Auth(new Request("http://x.test/auth/callback/credentials", {
  method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ csrfToken }) }), config)
const session = signIn.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))
const token = await getToken({ req: new Request("http://x.test/", { headers: { cookie: session.split(";")[0] } }), secret })
const roundTrip = await decode({ token: await encode({ token: { a: 1 }, secret, salt: "s" }), secret, salt: "s" })
console.log(JSON.stringify({
  status: signIn.status, name: token.name, a: roundTrip.a, express: typeof ExpressAuth, getSession: typeof getSession,
  errors: new CredentialsSignin() instanceof AuthError, action: isAuthAction("csrf"),
  others: [typeof createActionURL, typeof setEnvDefaults, typeof defineFlow, typeof raw, typeof skipCSRFCheck],
  inspect: [createInspector().routes.length, toMermaid(createMachine({ id: "f", initial: "a", states: { a: {} } })).split("\\n")[2]],
}))
`

/** For every compiled module, whether `authchart/<its path>` resolves, and every export imported. */
const reachabilityScript = (modules: string[], subpaths: string[]) => `
const reachable = {}
for (const module of ${JSON.stringify(modules)}) {
  try { import.meta.resolve("authchart/" + module); reachable[module] = true } catch { reachable[module] = false }
}
const imported = {}
for (const subpath of ${JSON.stringify(subpaths)}) {
  try { imported[subpath] = Object.keys(await import(subpath)).length > 0 } catch (e) { imported[subpath] = String(e) }
}
console.log(JSON.stringify({ reachable, imported }))
`

/**
 * An email provider in a project without nodemailer: what is logged, and what the email sign-in answers;
 * and the testing kit's mailbox without smtp-server and mailparser.
 */
const missingPeerScript = `
import { Auth } from "authchart"
import Nodemailer from "authchart/providers/nodemailer"
import { MemoryAdapter } from "authchart/adapters/memory"
const logged = []
const config = {
  secret: "a-secret-for-the-package-test-0123456789", trustHost: true, adapter: MemoryAdapter(),
  providers: [Nodemailer({ server: "smtp://127.0.0.1:2525" })],
  logger: { error: (e) => logged.push([e.type, e.message]), warn() {}, debug() {} },
}
const signIn = await Auth(new Request("http://x.test/auth/signin/nodemailer", {
  method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ email: "pat@example.test" }) }), config)
const mailbox = await import("authchart/testing").then((kit) => kit.createTestMailbox()).then(() => "started", (e) => e.message)
console.log(JSON.stringify({ logged, signIn: [signIn.status, (await signIn.json()).message], mailbox }))
`

describe("npm pack", () => {
  it("exposes exactly the public modules, each importable with no optional package installed", () => {
    const compiled = packed.listing
      .filter((path) => path.startsWith("package/dist/") && path.endsWith(".js"))
      .map((path) => path.slice("package/dist/".length, -".js".length).replace(/\/index$/, ""))
    const publicByPath = new Map(publicModules(repoRoot).map(([subpath, module]) => [module.replace(/\/index$/, ""), subpath]))
    const subpaths = [...publicByPath.values()].map((s) => (s === "." ? "authchart" : `authchart/${s.slice(2)}`))
    const { reachable, imported } = JSON.parse(packed.runScript("reach.js", reachabilityScript(compiled, subpaths))) as {
      reachable: Record<string, boolean>
      imported: Record<string, boolean | string>
    }
    for (const module of compiled) {
      // reachable under its own path only when that path is its public subpath (`integration/express` is `./express`)
      expect([module, reachable[module]]).toEqual([module, publicByPath.get(module) === `./${module}`])
    }
    expect(reachable["adapters/redis-codec"]).toBe(false)
    expect(reachable["providers/oauth-types"]).toBe(false)
    expect(reachable["runtime/config"]).toBe(false)
    expect(Object.entries(imported).filter(([, ok]) => ok !== true)).toEqual([])
  })

  it("produces a tarball that works when installed into another project", () => {
    packed.link("express")
    const result = JSON.parse(packed.runScript("main.js", smokeScript)) as Record<string, unknown>
    expect(result).toEqual({
      status: 303,
      name: "Pat",
      a: 1,
      express: "function",
      getSession: "function",
      errors: true,
      action: true,
      others: ["function", "function", "function", "symbol", "symbol"],
      inspect: [4, "  [*] --> a"],
    })
    expect(packed.listing).toContain("package/dist/index.d.ts")
    expect(packed.listing).toContain("package/dist/cli.js")
    expect(readFileSync(join(packed.pkgDir, "dist/cli.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true)
    expect(packed.listing.filter((path) => path.startsWith("package/tests/"))).toEqual([])
  })

  it("names a missing optional package: at start-up for a configured provider (its sign-in answers the configuration error), and in the testing kit", () => {
    const result = JSON.parse(packed.runScript("missing-peer.js", missingPeerScript)) as Record<string, unknown>
    expect(result).toEqual({
      logged: [
        [
          "MissingDependency",
          'The email provider "nodemailer" needs the package "nodemailer", which is not installed: npm install nodemailer',
        ],
      ],
      signIn: [500, "There was a problem with the server configuration. Check the server logs for more information."],
      mailbox: 'createTestMailbox() receives mail with the packages "smtp-server" and "mailparser": npm install -D smtp-server mailparser',
    })
  })

  it("ships no source maps (they would point at src/, which is not shipped)", () => {
    expect(packed.listing.filter((path) => path.endsWith(".map") || path.startsWith("package/src/"))).toEqual([])
    const index = readFileSync(join(packed.pkgDir, "dist/index.js"), "utf8")
    expect(index).not.toContain("sourceMappingURL")
  })

  it("is clean for publint (warnings count) and arethetypeswrong (ESM-only profile)", () => {
    const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name)
    const publint = execFileSync(bin("publint"), ["run", packed.tarball, "--strict", "--level", "suggestion"], { encoding: "utf8" })
    expect(publint).toContain("All good!")
    // --no-definitely-typed: no @types lookup on the registry; exits non-zero on any problem
    // the JSON report is past 1 MB (spawnSync's default maxBuffer, which kills the child: status null)
    const attw = spawnSync(bin("attw"), [packed.tarball, "--profile", "esm-only", "--no-definitely-typed", "--format", "json"], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    })
    const problems = (JSON.parse(attw.stdout) as { problems: Record<string, { resolutionKind?: string }[]> }).problems
    const counted = Object.values(problems)
      .flat()
      .filter((p) => p.resolutionKind !== "node10" && p.resolutionKind !== "node16-cjs")
    expect(counted).toEqual([])
    expect(attw.status).toBe(0)
  }, 120_000)
})

describe("README", () => {
  it("every ```ts block type-checks under strict against the packed package", () => {
    packed.link("express", "@types/express", "@types/node", "redis", "vitest")
    // and, in the same run, a flow written as an application writes one, with authchart/flow only
    const appFlow = join(repoRoot, "tests/support/confirm-flow.ts")
    expect(typeCheckReadme(packed.app, join(repoRoot, "README.md"), [appFlow])).toEqual([])
  }, 120_000)
})
