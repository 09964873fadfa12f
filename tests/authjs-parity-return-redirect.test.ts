/**
 * `X-Auth-Return-Redirect` (what next-auth's `signIn()`/`signOut()` send): every redirect becomes 200
 * `{ url }`. Auth.js keeps the `Location` header on a success and sends none when the redirect reports
 * an error (its catch path builds a fresh `Response.json({ url })`). Each request goes to `@auth/core`'s
 * `Auth`, to authchart's `Auth`, and to authchart's Express middleware, and the answers are compared.
 */
import type { AddressInfo } from "node:net"
import { Auth as AuthJs } from "@auth/core"
import AuthJsCredentials from "@auth/core/providers/credentials"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "../src/index.js"
import { ExpressAuth } from "../src/integration/express.js"
import { ORIGIN, SECRET } from "./helpers.js"

const authorize = async (c: Partial<Record<string, unknown>>) => (c.password === "pw" ? { id: "u1", name: "Ann" } : null)
const authjsConfig = { secret: SECRET, trustHost: true, basePath: "/auth", providers: [AuthJsCredentials({ authorize })] }
const authchartConfig: AuthConfig = { secret: SECRET, trustHost: true, providers: [AuthJsCredentials({ authorize })] }

type Send = (path: string, init: { cookie?: string; form: Record<string, string> }) => Promise<Response>

const inProcess =
  (auth: (request: Request) => Promise<Response>, origin: string): Send =>
  (path, { cookie, form }) => {
    const headers = new Headers({ "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" })
    if (cookie) headers.set("cookie", cookie)
    return auth(new Request(`${origin}${path}`, { method: "POST", headers, body: new URLSearchParams(form) }))
  }

let server: ReturnType<express.Express["listen"]>
let expressOrigin = ""
beforeAll(async () => {
  const app = express()
  app.use("/auth", ExpressAuth(authchartConfig))
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s))
  })
  expressOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const sides: Record<string, () => { send: Send; origin: string }> = {
  "Auth.js": () => ({ send: inProcess((r) => AuthJs(r, authjsConfig), ORIGIN), origin: ORIGIN }),
  "authchart Auth": () => ({ send: inProcess((r) => Auth(r, authchartConfig), ORIGIN), origin: ORIGIN }),
  "authchart ExpressAuth": () => ({
    send: (path, init) => inProcess((r) => fetch(r, { redirect: "manual" }), expressOrigin)(path, init),
    origin: expressOrigin,
  }),
}

/** A CSRF token and its cookie from the side itself. */
async function csrf(origin: string): Promise<{ csrfToken: string; cookie: string }> {
  const response = origin === ORIGIN ? await Auth(new Request(`${origin}/auth/csrf`), authchartConfig) : await fetch(`${origin}/auth/csrf`)
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0] ?? ""
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  return { csrfToken, cookie }
}

describe.each(Object.keys(sides))("X-Auth-Return-Redirect, %s", (name) => {
  it("a failed credentials sign-in: 200 { url } to the sign-in page with the error, and no Location", async () => {
    const { send, origin } = sides[name]?.() ?? expect.unreachable()
    const { csrfToken, cookie } = await csrf(origin)
    const response = await send("/auth/callback/credentials", { cookie, form: { csrfToken, password: "wrong" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("location")).toBeNull()
    expect(await response.json()).toEqual({ url: `${origin}/auth/signin?error=CredentialsSignin&code=credentials` })
  })

  it("a missing CSRF token: 200 { url } with error=MissingCSRF, and no Location", async () => {
    const { send, origin } = sides[name]?.() ?? expect.unreachable()
    const response = await send("/auth/callback/credentials", { form: { password: "pw" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("location")).toBeNull()
    expect(await response.json()).toEqual({ url: `${origin}/auth/signin?error=MissingCSRF` })
  })

  it("a successful sign-in: 200 { url }, the Location header kept", async () => {
    const { send, origin } = sides[name]?.() ?? expect.unreachable()
    const { csrfToken, cookie } = await csrf(origin)
    const response = await send("/auth/callback/credentials", { cookie, form: { csrfToken, password: "pw", callbackUrl: "/dash" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("location")).toBe(`${origin}/dash`)
    expect(await response.json()).toEqual({ url: `${origin}/dash` })
  })
})
