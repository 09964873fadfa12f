/**
 * The published package: `npm pack` (which builds in `prepack`) produces a tarball whose `exports` work
 * from another project. The tarball is unpacked into a temporary project's node_modules next to the
 * dependencies it declares, and a plain Node ESM script signs in through it.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const work = mkdtempSync(join(tmpdir(), "authchart-pack-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const script = `
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

describe("npm pack", () => {
  it("produces a tarball that works when installed into another project", () => {
    const out = execFileSync("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: root, encoding: "utf8" })
    const tarball = join(work, out.trim().split("\n").pop() as string)
    const app = join(work, "app")
    const pkgDir = join(app, "node_modules", "authchart")
    mkdirSync(pkgDir, { recursive: true })
    execFileSync("tar", ["-xzf", tarball, "-C", pkgDir, "--strip-components=1"])
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>
      files: string[]
    }
    for (const dep of [...Object.keys(manifest.dependencies), "express"]) {
      symlinkSync(join(root, "node_modules", dep), join(app, "node_modules", dep), "dir")
    }
    writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }))
    writeFileSync(join(app, "main.js"), script)
    const result = JSON.parse(execFileSync(process.execPath, ["main.js"], { cwd: app, encoding: "utf8" })) as Record<string, unknown>
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
    const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    expect(listing).toContain("package/dist/index.d.ts")
    expect(listing).toContain("package/dist/cli.js")
    expect(readFileSync(join(pkgDir, "dist/cli.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true)
    expect(listing).not.toContain("package/src/")
    expect(listing).not.toContain("package/tests/")
  }, 120_000)
})
