/**
 * An `@auth/express` app's TypeScript moves over by changing module names only (README, "Migrating from
 * Auth.js", step 3). One app source written against Auth.js' types — callbacks and events as Auth.js'
 * docs write them, module augmentation of `Session`, `User` and `JWT`, the names `@auth/express`
 * re-exports — is type-checked under `strict` against `@auth/express` (to show it is valid Auth.js code)
 * and, with the module names changed, against the packed authchart.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PackedProject, packIntoProject, repoRoot } from "./support/packed.js"

const AUTHJS_APP = `
import express from "express"
import { ExpressAuth, getSession, CredentialsSignin, AuthError, type ExpressAuthConfig } from "@auth/express"
import type { DefaultSession, Session, User, Account, Profile } from "@auth/express"
import Credentials from "@auth/express/providers/credentials"
import GitHub from "@auth/express/providers/github"
import type { Adapter } from "@auth/express/adapters"

declare module "@auth/core/types" {
  interface Session { user: { id: string; role: string } & DefaultSession["user"]; accessToken?: string }
  interface User { role?: string }
}
declare module "@auth/core/jwt" {
  interface JWT { id?: string; role?: string; accessToken?: string }
}

class InvalidLoginError extends CredentialsSignin {
  code = "invalid_login"
}
declare const adapter: Adapter

export const authConfig: ExpressAuthConfig = {
  adapter,
  session: { strategy: "jwt" },
  providers: [
    GitHub,
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

/** The README's step 3, applied to module names only. */
function migrated(source: string): string {
  return source
    .replaceAll('"@auth/express/providers/', '"authchart/providers/')
    .replaceAll('"@auth/express/adapters"', '"authchart/adapters/types"')
    .replaceAll('"@auth/express"', '"authchart/express"')
    .replaceAll('"@auth/core/types"', '"authchart"')
    .replaceAll('"@auth/core/jwt"', '"authchart/jwt"')
}

let packed: PackedProject
beforeAll(() => {
  packed = packIntoProject()
  packed.link("express", "@types/express", "@types/node", "@auth", "@panva", "preact", "preact-render-to-string", "nodemailer")
}, 180_000)
afterAll(() => packed?.remove())

/** Type-checks one file in its own directory of the packed project (strict, NodeNext); the errors. */
function typeCheck(dir: string, source: string): string[] {
  const at = join(packed.app, dir)
  rmSync(at, { recursive: true, force: true })
  mkdirSync(at)
  writeFileSync(join(at, "app.ts"), source)
  const compilerOptions = {
    strict: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  }
  writeFileSync(join(at, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }))
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc")
  const run = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], { cwd: at, encoding: "utf8" })
  return run.stdout.split("\n").filter((line) => line.trim() !== "")
}

describe("an @auth/express app's types, moved to authchart by changing module names", () => {
  it("is valid Auth.js code", () => {
    expect(typeCheck("authjs-app", AUTHJS_APP)).toEqual([])
  }, 60_000)

  it("compiles against the packed authchart (jwt's user and session, session's newSession, the re-exports, augmentation)", () => {
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
