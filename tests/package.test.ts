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

/**
 * What importing the main entry points loads: every module URL the ES loader loads (a load hook that
 * posts each URL to this thread). Then a credentials sign-in and a session read through ExpressAuth over
 * node:http, and the global \`Response\` touched: whether Node's fetch implementation (undici) was loaded
 * after the imports, after the sign-in, and after the touch (which must load it: the check is not vacuous).
 */
const loadedModulesScript = `
import { register } from "node:module"
import { request } from "node:http"
import { MessageChannel } from "node:worker_threads"
const { port1, port2 } = new MessageChannel()
const loaded = []
port1.on("message", (url) => loaded.push(url))
register("data:text/javascript," + encodeURIComponent(\`
let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) { port.postMessage(url); return next(url, context) }
\`), { data: { port: port2 }, transferList: [port2] })
const undici = () => process.moduleLoadList.some((name) => name.includes("undici"))
await import("authchart")
const { ExpressAuth } = await import("authchart/express")
const sentinel = "data:text/javascript,export{}"
await import(sentinel)
while (!loaded.includes(sentinel)) await new Promise((resolve) => setTimeout(resolve, 5))
port1.close()
const atImport = undici()
const modules = loaded.filter((url) => url.includes("/node_modules/")).map((url) => url.slice(url.lastIndexOf("/node_modules/") + 14))

const { default: express } = await import("express")
const { default: Credentials } = await import("authchart/providers/credentials")
const app = express()
const authorize = (credentials) => ({ id: "1", name: String(credentials.username) })
app.use("/auth", ExpressAuth({ secret: "a-secret-for-the-package-test-0123456789", trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] }))
const server = app.listen(0, "127.0.0.1")
await new Promise((resolve) => server.once("listening", resolve))
const call = (method, path, headers = {}, body) => new Promise((resolve, reject) => {
  const req = request({ host: "127.0.0.1", port: server.address().port, method, path, headers }, (res) => {
    let text = ""
    res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }))
  })
  req.on("error", reject)
  req.end(body)
})
const csrf = await call("GET", "/auth/csrf")
const form = { cookie: csrf.headers["set-cookie"][0].split(";")[0], "content-type": "application/x-www-form-urlencoded" }
const body = new URLSearchParams({ csrfToken: JSON.parse(csrf.text).csrfToken, username: "Pat" }).toString()
const signIn = await call("POST", "/auth/callback/credentials", form, body)
const session = signIn.headers["set-cookie"].find((c) => c.startsWith("authjs.session-token=")).split(";")[0]
const read = await call("GET", "/auth/session", { cookie: session })
server.close()
const afterSignIn = undici()
void globalThis.Response
console.log(JSON.stringify({ modules, signIn: [signIn.status, JSON.parse(read.text).user.name], undici: [atImport, afterSignIn, undici()] }))
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

  it("a CommonJS app can require() every public module, as @auth/express (Node 20.19+ and 22.12+ load ES modules by require)", () => {
    packed.link("express")
    const script = `
const subpaths = Object.keys(require("authchart/package.json").exports).filter((key) => key !== "./package.json")
const failed = subpaths.filter((subpath) => {
  try {
    require("authchart" + subpath.slice(1))
    return false
  } catch (err) {
    return true
  }
})
const { ExpressAuth, getSession } = require("authchart/express")
const Credentials = require("authchart/providers/credentials").default
console.log(JSON.stringify({ count: subpaths.length, failed, express: typeof ExpressAuth(({ secret: "s".repeat(40), providers: [Credentials({})] })), getSession: typeof getSession }))
`
    const result = JSON.parse(packed.runScript("required.cjs", script)) as Record<string, unknown>
    expect(result).toEqual({ count: publicModules(repoRoot).length, failed: [], express: "function", getSession: "function" })
  })

  it("importing authchart and authchart/express loads no optional package, none of jose's index, the CLI, inspector or testing kit; a credentials sign-in through Express does not load Node's fetch implementation", () => {
    packed.link("express")
    const { modules, signIn, undici } = JSON.parse(packed.runScript("loaded.js", loadedModulesScript)) as {
      modules: string[]
      signIn: [number, string]
      undici: boolean[]
    }
    const packages = new Set(
      modules.map((path) =>
        path
          .split("/")
          .slice(0, path.startsWith("@") ? 2 : 1)
          .join("/"),
      ),
    )
    expect([...packages].sort()).toEqual(["authchart", "cookie", "jose", "oauth4webapi", "xstate"])
    // jose by its subpaths (errors; the decrypt of unusual tokens is imported on first use)
    expect(modules).toContain("jose/dist/webapi/util/errors.js")
    expect(modules).not.toContain("jose/dist/webapi/index.js")
    expect(modules).not.toContain("jose/dist/webapi/jwt/decrypt.js")
    expect(modules).toContain("authchart/dist/integration/express.js")
    // the provider factories an app imports itself (providers/oauth.js is the runtime's: options merging)
    const lazy = /^authchart\/dist\/(cli|inspect|testing|adapters|steps|providers\/(?!credentials\.js$|oauth\.js$))/
    expect(modules.filter((path) => lazy.test(path))).toEqual([])
    // a credentials sign-in whose authorize never reads its request loads no undici (about 3 MB of RSS)
    expect(signIn).toEqual([303, "Pat"])
    expect(undici).toEqual([false, false, true])
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
