/**
 * Moving an `@auth/express` app to authchart, and back, with people signed in. One Express 5 app on one
 * loopback origin: credentials and an OIDC provider (the real oidc-provider) with `@auth/pg-adapter` on a
 * real PostgreSQL, its `/auth` routes and its `/me` page (`getSession`) served by `@auth/express` or by
 * authchart. The deploy is a switch between the two, the only change the app makes being its imports
 * (`@auth/express` → `authchart/express`, `@auth/express/providers/credentials` →
 * `authchart/providers/credentials`); the config is otherwise the same object literal.
 *
 * A browser-like cookie jar keeps the cookies across the switch: sessions made by one library are read,
 * refreshed and ended by the other, for JWT sessions and for database sessions in the same tables.
 */
import type { Server } from "node:http"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { ExpressAuth as AuthJsExpressAuth, getSession as authJsGetSession } from "@auth/express"
import AuthJsCredentials from "@auth/express/providers/credentials"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "../src/adapters/types.js"
import { ExpressAuth, getSession } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import { CookieJar, SECRET } from "./helpers.js"
import { pgBackend } from "./support/backends.js"
import { type OidcServer, startOidcProvider } from "./support/oidc-provider.js"

type Library = "@auth/express" | "authchart"
type Strategy = "jwt" | "database"

const CREDENTIAL_USER = { id: "cred-1", name: "Casey Credentials", email: "casey@example.test" }

/** The app's auth config, as the Auth.js docs write it; `credentials` is the imported provider. */
function appConfig(credentials: typeof Credentials, adapter: Adapter, issuer: string, strategy: Strategy) {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    providers: [
      credentials({
        credentials: { password: { label: "Password", type: "password" } },
        authorize: async (c: Partial<Record<string, unknown>>) => (c.password === "open sesame" ? { ...CREDENTIAL_USER } : null),
      }),
      { id: "idp", name: "IdP", type: "oidc" as const, issuer, clientId: "migration", clientSecret: "migration-secret" },
    ],
  }
}

/** Sends requests to the app over HTTP as a browser would: cookies kept, redirects not followed. */
class Browser {
  readonly jar = new CookieJar()
  constructor(private readonly base: string) {}

  async send(path: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.jar.header() }
    if (form) headers["content-type"] = "application/x-www-form-urlencoded"
    const response = await fetch(new URL(path, this.base), {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form) : undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    })
    this.jar.apply(response)
    return response
  }

  async csrf(): Promise<string> {
    return ((await (await this.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
  }

  async json(path: string): Promise<{ user?: { name?: string; email?: string }; expires?: string } | null> {
    const response = await this.send(path)
    expect(response.status, path).toBe(200)
    return (await response.json()) as { user?: { name?: string; email?: string } } | null
  }
}

let idp: OidcServer
let server: Server
let base: string
const apps: Partial<Record<Strategy, Record<Library, express.RequestHandler>>> = {}
const pages: Partial<Record<Strategy, Record<Library, (req: express.Request) => Promise<unknown>>>> = {}
let live: { strategy: Strategy; library: Library } = { strategy: "jwt", library: "@auth/express" }

beforeAll(async () => {
  const app = express()
  app.use("/auth", (req, res, next) => apps[live.strategy]?.[live.library](req, res, next))
  app.get("/me", async (req, res, next) => {
    try {
      res.json((await pages[live.strategy]?.[live.library](req)) ?? null)
    } catch (error) {
      next(error)
    }
  })
  server = app.listen(0, "127.0.0.1")
  await once(server, "listening")
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  idp = await startOidcProvider({
    clients: [{ client_id: "migration", client_secret: "migration-secret", redirect_uris: [`${base}/auth/callback/idp`] }],
  })
})
afterAll(async () => {
  server?.closeAllConnections()
  server?.close()
  await idp?.stop()
})

describe.each<Strategy>(["jwt", "database"])("an @auth/express app with %s sessions moves to authchart and back", (strategy) => {
  let adapter: Adapter
  let teardown: () => Promise<void>

  beforeAll(async () => {
    ;({ adapter, teardown } = await pgBackend.setup())
    const authjs = appConfig(AuthJsCredentials as unknown as typeof Credentials, adapter, idp.issuer, strategy)
    const authchart = appConfig(Credentials, adapter, idp.issuer, strategy)
    // @auth/express types its config against @auth/core's types: the same shape, declared twice.
    const authjsConfig = authjs as unknown as Parameters<typeof AuthJsExpressAuth>[0]
    apps[strategy] = { "@auth/express": AuthJsExpressAuth(authjsConfig), authchart: ExpressAuth(authchart) }
    pages[strategy] = { "@auth/express": (req) => authJsGetSession(req, authjsConfig), authchart: (req) => getSession(req, authchart) }
  })
  afterAll(() => teardown?.())

  function deploy(library: Library): void {
    live = { strategy, library }
  }

  async function oidcSignIn(browser: Browser, account: string): Promise<Response> {
    const csrfToken = await browser.csrf()
    const start = await browser.send("/auth/signin/idp", { csrfToken, callbackUrl: `${base}/me` })
    const answer = await idp.authorize(start.headers.get("location") ?? "", { account })
    if (answer.kind !== "redirect") throw new Error(`the IdP answered ${answer.kind}`)
    return browser.send(answer.url)
  }

  async function expectSignedIn(browser: Browser, email: string): Promise<void> {
    expect((await browser.json("/auth/session"))?.user?.email).toBe(email)
    expect((await browser.json("/me"))?.user?.email).toBe(email)
  }

  it("a user signed in with OIDC under Auth.js stays signed in under authchart, with the same cookie", async () => {
    deploy("@auth/express")
    const browser = new Browser(base)
    const callback = await oidcSignIn(browser, "alice@example.test")
    expect(callback.headers.get("location")).toBe(`${base}/me`)
    const cookie = browser.jar.get("authjs.session-token")
    expect(cookie).toBeTruthy()
    if (strategy === "jwt") expect(cookie?.split(".")).toHaveLength(5)
    else expect(await adapter.getSessionAndUser?.(cookie as string)).toMatchObject({ user: { email: "alice@example.test" } })
    await expectSignedIn(browser, "alice@example.test")

    deploy("authchart")
    await expectSignedIn(browser, "alice@example.test")
    expect(browser.jar.get("authjs.session-token")).toBeTruthy()

    deploy("@auth/express")
    await expectSignedIn(browser, "alice@example.test")
  })

  it("a user who signs in under authchart is recognised by Auth.js after a switch back, as the same database user", async () => {
    deploy("@auth/express")
    const before = new Browser(base)
    await oidcSignIn(before, "bob@example.test")
    const bob = await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: "user-bob" })
    expect(bob).toMatchObject({ email: "bob@example.test" })

    deploy("authchart")
    const browser = new Browser(base)
    const callback = await oidcSignIn(browser, "bob@example.test")
    expect(callback.headers.get("location")).toBe(`${base}/me`)
    if (strategy === "database") {
      const stored = await adapter.getSessionAndUser?.(browser.jar.get("authjs.session-token") as string)
      expect(stored?.user.id).toBe(bob?.id)
    }

    deploy("@auth/express")
    await expectSignedIn(browser, "bob@example.test")
    expect(await adapter.getUserByEmail?.("bob@example.test")).toMatchObject({ id: bob?.id })
  })

  it("a session started under one library is signed out by the other", async () => {
    deploy("@auth/express")
    const browser = new Browser(base)
    await oidcSignIn(browser, "alice@example.test")
    const token = browser.jar.get("authjs.session-token") as string

    deploy("authchart")
    const csrfToken = await browser.csrf()
    const out = await browser.send("/auth/signout", { csrfToken })
    // back to the page of the callback-url cookie Auth.js set at sign-in
    expect(out.headers.get("location")).toBe(`${base}/me`)
    expect(browser.jar.get("authjs.session-token")).toBeUndefined()
    if (strategy === "database") expect(await adapter.getSessionAndUser?.(token)).toBeNull()

    deploy("@auth/express")
    expect(await browser.json("/auth/session")).toBeNull()
  })

  it.runIf(strategy === "jwt")("credentials sign-ins carry over both ways (JWT sessions only, as in Auth.js)", async () => {
    deploy("@auth/express")
    const browser = new Browser(base)
    const signIn = await browser.send("/auth/callback/credentials", { csrfToken: await browser.csrf(), password: "open sesame" })
    expect(signIn.headers.get("location")).toBe(base)
    await expectSignedIn(browser, CREDENTIAL_USER.email)

    deploy("authchart")
    await expectSignedIn(browser, CREDENTIAL_USER.email)
    const again = new Browser(base)
    const authchartSignIn = await again.send("/auth/callback/credentials", { csrfToken: await again.csrf(), password: "open sesame" })
    expect(authchartSignIn.status).toBe(303)

    deploy("@auth/express")
    await expectSignedIn(again, CREDENTIAL_USER.email)
    expect((await again.json("/me"))?.user?.name).toBe(CREDENTIAL_USER.name)
  })
})
