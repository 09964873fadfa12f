/**
 * The published package: `npm pack` produces a tarball whose `exports` work from another project, that
 * exposes its public modules and nothing else, that publint and arethetypeswrong find clean, whose
 * README's and guides' (docs/*.md) snippets type-check against it under `strict`, and against which an `@auth/express` app's
 * TypeScript compiles with its module names changed. One `npm pack` (a build) for all of them.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { publicModules } from "../scripts/exports.mjs"
import { packIntoProject, repoRoot, type PackedProject } from "./support/packed.js"
import { STRICT_NODENEXT, documentationFiles, runTsc, typeCheckMarkdown } from "./support/readme-snippets.js"

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
    expect(reachable["runtime/front/resolve"]).toBe(false)
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
    // jose by its subpaths (errors, the JWT decrypt every session read uses), never its index
    expect(modules).toContain("jose/dist/webapi/util/errors.js")
    expect(modules).toContain("jose/dist/webapi/jwt/decrypt.js")
    expect(modules).not.toContain("jose/dist/webapi/index.js")
    expect(modules).toContain("authchart/dist/integration/express.js")
    // the provider factories an app imports itself (providers/oauth.js is the runtime's: options merging)
    const lazy = /^authchart\/dist\/(cli|inspect|testing|adapters|steps|providers\/(?!credentials\.js$|oauth\.js$))/
    expect(modules.filter((path) => lazy.test(path))).toEqual([])
    // a credentials sign-in whose authorize never reads its request loads no undici
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

describe("README and the guides in docs/", () => {
  it("every ```ts block type-checks under strict against the packed package", () => {
    packed.link("express", "@types/express", "@types/node", "redis", "vitest")
    // and, in the same run, a flow written as an application writes one, with authchart/flow only
    const appFlow = join(repoRoot, "tests/support/confirm-flow.ts")
    // and the flows guide's whole flow of one's own as a file (tests/own-flow.test.ts signs in with it)
    const smsFlow = join(repoRoot, "tests/fixtures/sms-flow.ts")
    expect(typeCheckMarkdown(packed.app, documentationFiles(), [appFlow, smsFlow])).toEqual([])
  }, 120_000)
})

// An `@auth/express` app's TypeScript moves over by changing module names only (the migration guide,
// docs/migrating-from-authjs.md, step 3). One app source written against Auth.js' types — callbacks and events as Auth.js'
// docs write them, module augmentation of `Session`, `User` and `JWT`, the names `@auth/express`
// re-exports — is type-checked under `strict` against `@auth/express` (to show it is valid Auth.js code)
// and, with the module names changed, against the packed authchart.
const AUTHJS_APP = `
import express from "express"
import { ExpressAuth, getSession, CredentialsSignin, AuthError, type ExpressAuthConfig } from "@auth/express"
import type { DefaultSession, Session, User, Account, Profile } from "@auth/express"
import Credentials from "@auth/express/providers/credentials"
import GitHub from "@auth/express/providers/github"
import type { Adapter, AdapterUser } from "@auth/express/adapters"
import PostgresAdapter from "@auth/pg-adapter"
import Discord, { type DiscordProfile } from "@auth/express/providers/discord"
import WorkOS from "@auth/express/providers/workos"
import Resend from "@auth/express/providers/resend"

declare module "@auth/core/types" {
  interface Session { user: { id: string; role: string } & DefaultSession["user"]; accessToken?: string }
  interface User { role?: string }
}
declare module "@auth/core/adapters" {
  interface AdapterUser { plan?: "free" | "pro" }
}
declare module "@auth/core/jwt" {
  interface JWT { id?: string; role?: string; accessToken?: string }
}

class InvalidLoginError extends CredentialsSignin {
  code = "invalid_login"
}
declare const adapter: Adapter
// an @auth/*-adapter, typed with @auth/core's own types, next to the app's
declare const pool: Parameters<typeof PostgresAdapter>[0]
const db = PostgresAdapter(pool)
export const discordImage = (profile: DiscordProfile): string => profile.image_url
export const planOf = (user: AdapterUser): string => user.plan ?? "free"

export const authConfig: ExpressAuthConfig = {
  adapter,
  session: { strategy: "jwt" },
  providers: [
    GitHub,
    Discord,
    WorkOS({ connection: "conn_1" }),
    Resend({ from: "no-reply@acme.example" }),
    Credentials({
      credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
      authorize: async (credentials) => {
        if (credentials.password !== "x") throw new InvalidLoginError()
        return { id: "1", email: String(credentials.email), role: "admin" }
      },
    }),
  ],
  callbacks: {
    async signIn({ user, account, profile }) {
      // the account as the callback gets it, handed to the @auth adapter's own method
      if (account && user.id) await db.linkAccount?.({ ...account, userId: user.id, type: "oauth" })
      return account?.provider !== "github" || !!profile?.email || !!user.email
    },
    async jwt({ token, user, account, trigger, session }) {
      // Auth.js' docs: user and account at sign-in, session is the update's data (typed any)
      if (account) {
        token.id = user.id
        token.accessToken = account.access_token
      }
      if (user) token.role = user.role
      if (trigger === "update" && session?.name) token.name = session.name
      return token
    },
    async session({ session, token, newSession, trigger }) {
      session.user.id = token.id ?? ""
      session.user.role = token.role ?? "user"
      session.accessToken = token.accessToken
      if (trigger === "update" && newSession?.name) session.user.name = newSession.name
      return session
    },
  },
  events: {
    async signIn({ user, account, isNewUser }) {
      void [user.role, account?.provider, isNewUser]
    },
  },
}

const app = express()
app.use("/auth", ExpressAuth(authConfig))
app.get("/me", async (req, res) => {
  const session: Session | null = await getSession(req, authConfig)
  res.json({ id: session?.user.id, role: session?.user.role, token: session?.accessToken })
})
export function describeError(err: unknown): string {
  return err instanceof AuthError ? err.type : "unknown"
}
export type Used = [User, Account, Profile]
`

/** The migration guide's step 3, applied to module names only. */
function migrated(source: string): string {
  return source
    .replaceAll('"@auth/express/providers/', '"authchart/providers/')
    .replaceAll('"@auth/express/adapters"', '"authchart/adapters/types"')
    .replaceAll('"@auth/express"', '"authchart/express"')
    .replaceAll('"@auth/core/types"', '"authchart"')
    .replaceAll('"@auth/core/jwt"', '"authchart/jwt"')
    .replaceAll('declare module "@auth/core/adapters"', 'declare module "authchart/adapters/types"')
}

/** Type-checks one file in its own directory of the packed project (strict, NodeNext); the errors. */
function typeCheck(dir: string, source: string): string[] {
  const at = join(packed.app, dir)
  rmSync(at, { recursive: true, force: true })
  mkdirSync(at)
  writeFileSync(join(at, "app.ts"), source)
  const compilerOptions = { ...STRICT_NODENEXT, types: ["node"] }
  writeFileSync(join(at, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }))
  return runTsc(at).lines
}

describe("an @auth/express app's types, moved to authchart by changing module names", () => {
  // linked here, after the tests above that need a project without optional packages
  beforeAll(() =>
    packed.link("express", "@types/express", "@types/node", "@auth", "@panva", "preact", "preact-render-to-string", "nodemailer"),
  )

  it("is valid Auth.js code", () => {
    expect(typeCheck("authjs-app", AUTHJS_APP)).toEqual([])
  }, 60_000)

  it("compiles against the packed authchart (jwt's user and session, session's newSession, the re-exports, augmentations of Session, User, JWT and AdapterUser, preset profile types, an account passed to an @auth/*-adapter)", () => {
    expect(typeCheck("authchart-app", migrated(AUTHJS_APP))).toEqual([])
  }, 60_000)

  it("augments Session and JWT with only authchart/express imported", () => {
    const source = `
import { ExpressAuth, getSession, type DefaultSession, type ExpressAuthConfig } from "authchart/express"
import type { Request } from "express"
declare module "authchart" {
  interface Session { user: { role: string } & DefaultSession["user"] }
}
declare module "authchart/jwt" {
  interface JWT { role?: string }
}
export const config: ExpressAuthConfig = {
  providers: [],
  callbacks: {
    jwt: ({ token }) => ({ ...token, role: "admin" }),
    session: ({ session, token }) => ({ ...session, user: { ...session.user, role: token.role ?? "member" } }),
  },
}
export const role = async (req: Request): Promise<string | undefined> => (await getSession(req, config))?.user.role
export const mounted = ExpressAuth(config)
`
    expect(typeCheck("augment-only-express", source)).toEqual([])
  }, 60_000)
})
