/**
 * The Express integration over real HTTP: Express 4 and 5, every mount style, a browser-ish cookie jar.
 * Each scenario is a script of requests asserting status, location, cookies and body at each step.
 */
import { once } from "node:events"
import { createRequire } from "node:module"
import { createServer, request as httpRequest, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import express, { type Express, type NextFunction, type Request as Req, type Response as Res } from "express"
import { afterEach, describe, expect, it } from "vitest"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import type { Session } from "../src/types.js"
import { CookieJar, SECRET, captureLogger, parseSetCookie } from "./helpers.js"

type ExpressFactory = typeof express

/** Express 4, installed as the alias `express4` (CommonJS, typed like Express 5 for what these tests use). */
const express4 = createRequire(import.meta.url)("express4") as ExpressFactory

const versions: ReadonlyArray<{ name: string; express: ExpressFactory; splat: string }> = [
  { name: "Express 4", express: express4, splat: "/auth/*" },
  { name: "Express 5", express, splat: "/auth/*splat" },
]

interface Mount {
  /** The path given to `app.use`. */
  readonly path: string
  /** Where the auth routes answer. */
  readonly base: string
}

const mountsFor = (splat: string): Mount[] => [
  { path: "/auth", base: "/auth" },
  { path: splat, base: "/auth" },
  { path: "/api/auth", base: "/api/auth" },
]

const USER = { id: "u1", name: "Ada Lovelace", email: "ada@example.test" }
const PASSWORD = "analytical-engine"

function authConfig(extra: Partial<ExpressAuthConfig> = {}): ExpressAuthConfig & { log: ReturnType<typeof captureLogger> } {
  const log = captureLogger()
  return {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { username: { label: "Email" }, password: { label: "Password", type: "password" } },
        authorize: ({ username, password }) => (username === USER.email && password === PASSWORD ? USER : null),
      }),
    ],
    ...extra,
    log,
  }
}

// ---------------------------------------------------------------------------------------------------------
// A listening app and a client with a cookie jar

const servers: Server[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
    await once(server, "close")
  }
})

async function listen(app: Express): Promise<string> {
  const server = createServer(app)
  servers.push(server)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

interface Send {
  method?: string
  form?: Record<string, string>
  json?: unknown
  body?: string
  headers?: Record<string, string>
}

class Browser {
  readonly jar = new CookieJar()
  constructor(readonly origin: string) {}

  async send(path: string, options: Send = {}): Promise<Response> {
    const headers = new Headers(options.headers)
    const cookie = this.jar.header()
    if (cookie) headers.set("cookie", cookie)
    let body = options.body
    if (options.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(options.form).toString()
    } else if (options.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(options.json)
    }
    const method = options.method ?? (body === undefined ? "GET" : "POST")
    const response = await fetch(`${this.origin}${path}`, { method, headers, body, redirect: "manual" })
    this.jar.apply(response)
    return response
  }

  async csrf(base: string, headers?: Record<string, string>): Promise<string> {
    const response = await this.send(`${base}/csrf`, headers ? { headers } : {})
    expect(response.status).toBe(200)
    return ((await response.json()) as { csrfToken: string }).csrfToken
  }

  async signIn(base: string, as: "form" | "json", password = PASSWORD, callbackUrl = "/dashboard") {
    const csrfToken = await this.csrf(base)
    const fields = { csrfToken, username: USER.email, password, callbackUrl }
    return this.send(`${base}/callback/credentials`, as === "form" ? { form: fields } : { json: fields })
  }
}

const setCookieNames = (response: Response): string[] => response.headers.getSetCookie().map((c) => parseSetCookie(c).name)

const sessionOf = async (response: Response): Promise<Session | null> => (await response.json()) as Session | null

/** A route answering the session as JSON (or the error message with 500). */
const sessionRoute =
  (read: (req: Req, res: Res) => Promise<Session | null>) =>
  async (req: Req, res: Res): Promise<void> => {
    try {
      res.json({ session: await read(req, res) })
    } catch (err) {
      res.status(500).json({ message: (err as Error).message })
    }
  }

/** The app's error handler: the error's message as JSON. */
const errorHandler = (err: Error, _req: Req, res: Res, _next: (err?: unknown) => void): void => {
  res.status(500).json({ message: err.message })
}

// ---------------------------------------------------------------------------------------------------------

describe.each(versions)("$name", ({ express: factory, splat }) => {
  describe.each(mountsFor(splat))("app.use($path, ExpressAuth(config))", ({ path, base }) => {
    async function start() {
      const config = authConfig()
      const app = factory()
      app.use(path, ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      app.get(
        "/me-mounted",
        sessionRoute((req) => getSession(req)),
      )
      app.post(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      return { config, browser: new Browser(await listen(app)) }
    }

    it.each(["form", "json"] as const)("csrf → sign in (%s body) → session → protected route → sign out", async (as) => {
      const { config, browser } = await start()
      const origin = browser.origin

      const csrf = await browser.send(`${base}/csrf`)
      expect(csrf.status).toBe(200)
      expect(csrf.headers.get("content-type")).toBe("application/json")
      expect(setCookieNames(csrf)).toEqual(["authjs.csrf-token"])

      const wrong = await browser.signIn(base, as, "wrong password")
      expect(wrong.status).toBe(303)
      expect(wrong.headers.get("location")).toBe(`${origin}${base}/signin?error=CredentialsSignin&code=credentials`)
      expect(browser.jar.get("authjs.session-token")).toBeUndefined()

      const signedIn = await browser.signIn(base, as)
      expect(signedIn.status).toBe(303)
      expect(signedIn.statusText).toBe("See Other")
      expect(signedIn.headers.get("location")).toBe(`${origin}/dashboard`)
      expect(signedIn.headers.get("content-type")).toBeNull()
      expect(setCookieNames(signedIn)).toContain("authjs.session-token")
      expect(browser.jar.get("authjs.session-token")).toBeTruthy()

      const session = await sessionOf(await browser.send(`${base}/session`))
      expect(session?.user).toEqual({ name: USER.name, email: USER.email })
      expect(Date.parse(session?.expires ?? "")).toBeGreaterThan(Date.now())

      for (const route of ["/me", "/me-mounted"]) {
        const me = await browser.send(route)
        expect(me.status).toBe(200)
        expect(((await me.json()) as { session: Session }).session.user).toEqual({ name: USER.name, email: USER.email })
      }
      // a POST (or any method) reads the session the same way: getSession is always a GET /session
      const posted = await browser.send("/me", { method: "POST", form: { x: "1" } })
      expect(((await posted.json()) as { session: Session | null }).session?.user?.email).toBe(USER.email)

      const signedOut = await browser.send(`${base}/signout`, { form: { csrfToken: await browser.csrf(base) } })
      expect(signedOut.status).toBe(303)
      expect(signedOut.headers.get("location")).toBe(`${origin}/dashboard`)
      const cleared = signedOut.headers
        .getSetCookie()
        .map(parseSetCookie)
        .find((c) => c.name === "authjs.session-token")
      expect(cleared?.value).toBe("")
      expect(cleared?.attributes["max-age"]).toBe("0")
      expect(browser.jar.get("authjs.session-token")).toBeUndefined()

      expect(await sessionOf(await browser.send(`${base}/session`))).toBeNull()
      const anonymous = await browser.send("/me-mounted")
      expect(await anonymous.json()).toEqual({ session: null })
      expect(config.log.errors.map((e) => e.name)).toEqual(["CredentialsSignin"])
    })

    it("serves the sign-in page and redirects GET errors with 302 Found under the mount path", async () => {
      const { browser } = await start()
      const page = await browser.send(`${base}/signin`)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      const html = await page.text()
      expect(html).toContain(`action="${browser.origin}${base}/callback/credentials"`)
      expect(html).toContain('name="csrfToken"')

      const unknown = await browser.send(`${base}/callback/nobody`)
      expect(unknown.status).toBe(302)
      expect(unknown.statusText).toBe("Found")
      expect(unknown.headers.get("content-type")).toBeNull()
      expect(unknown.headers.get("location")).toMatch(new RegExp(`^${browser.origin}${base}/error\\?error=`))
    })

    it("answers an encoded provider id under the mount path, not a 400", async () => {
      const { browser } = await start()
      const response = await browser.send(`${base}/callback/no%20body`)
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toMatch(new RegExp(`^${browser.origin}${base}/error\\?error=`))
    })

    it("answers 400 outside its actions and leaves other paths to the app", async () => {
      const { browser } = await start()
      const bad = await browser.send(`${base}/nonsense`)
      expect(bad.status).toBe(400)
      expect(bad.statusText).toBe("Bad Request")
      expect(await bad.json()).toBe("Bad request.")
    })
  })

  describe("wire details", () => {
    it("sends each Set-Cookie as its own header line", async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      const origin = await listen(app)
      const browser = new Browser(origin)
      const signedIn = await browser.signIn("/auth", "form")
      expect(signedIn.headers.getSetCookie().length).toBeGreaterThanOrEqual(2)

      // the raw header lines, as a browser receives them
      const lines = await new Promise<string[]>((resolve, reject) => {
        const req = httpRequest(`${origin}/auth/signin?callbackUrl=%2Fafter`, (res) => {
          res.resume()
          resolve(res.headers["set-cookie"] ?? [])
        })
        req.on("error", reject)
        req.end()
      })
      expect(lines.map((l) => parseSetCookie(l).name).sort()).toEqual(["authjs.callback-url", "authjs.csrf-token"])
    })

    it("keeps Set-Cookie headers earlier middleware set, except the names it sets itself", async () => {
      const config = authConfig()
      const app = factory()
      app.use((_req, res, next) => {
        res.append("Set-Cookie", "app-cookie=1; Path=/")
        res.append("Set-Cookie", "authjs.csrf-token=stale; Path=/")
        next()
      })
      app.use("/auth", ExpressAuth(config))
      const browser = new Browser(await listen(app))
      const csrf = await browser.send("/auth/csrf")
      expect(setCookieNames(csrf).sort()).toEqual(["app-cookie", "authjs.csrf-token"])
      expect(browser.jar.get("authjs.csrf-token")).not.toBe("stale")
    })

    it("without trust proxy, X-Forwarded-Proto is ignored: plain cookie names", async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      const browser = new Browser(await listen(app))
      const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "proxy.example" }
      const csrfToken = await browser.csrf("/auth", forwarded)
      expect([...browser.jar.cookies.keys()]).toEqual(["authjs.csrf-token"])
      const signedIn = await browser.send("/auth/callback/credentials", {
        headers: forwarded,
        form: { csrfToken, username: USER.email, password: PASSWORD, callbackUrl: "/home" },
      })
      expect(signedIn.headers.get("location")).toBe(`${browser.origin}/home`)
      expect(setCookieNames(signedIn)).toContain("authjs.session-token")
      const me = await browser.send("/me", { headers: forwarded })
      expect(((await me.json()) as { session: Session }).session.user?.email).toBe(USER.email)
    })

    it("with trust proxy, X-Forwarded-* give __Secure-/__Host- cookies, and getSession reads them", async () => {
      const config = authConfig()
      const app = factory()
      app.set("trust proxy", true)
      app.use("/auth", ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      const browser = new Browser(await listen(app))
      const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "proxy.example" }
      const csrfToken = await browser.csrf("/auth", forwarded)
      expect([...browser.jar.cookies.keys()]).toEqual(["__Host-authjs.csrf-token"])
      const signedIn = await browser.send("/auth/callback/credentials", {
        headers: forwarded,
        form: { csrfToken, username: USER.email, password: PASSWORD, callbackUrl: "/home" },
      })
      expect(signedIn.status).toBe(303)
      expect(signedIn.headers.get("location")).toBe("https://proxy.example/home")
      const cookie = signedIn.headers
        .getSetCookie()
        .map(parseSetCookie)
        .find((c) => c.name === "__Secure-authjs.session-token")
      expect(cookie?.attributes.secure).toBe(true)

      const me = await browser.send("/me", { headers: forwarded })
      expect(((await me.json()) as { session: Session }).session.user?.email).toBe(USER.email)
      // the same request without the proxy headers is plain http: the secure cookie is not its session
      const direct = await browser.send("/me")
      expect(await direct.json()).toEqual({ session: null })
    })

    it("works after app-level express.json() and express.urlencoded()", async () => {
      const config = authConfig()
      const app = factory()
      app.use(factory.json())
      app.use(factory.urlencoded({ extended: false }))
      app.use("/auth", ExpressAuth(config))
      const browser = new Browser(await listen(app))
      for (const as of ["json", "form"] as const) {
        const signedIn = await browser.signIn("/auth", as)
        expect(signedIn.status).toBe(303)
        expect(signedIn.headers.get("location")).toBe(`${browser.origin}/dashboard`)
        expect((await sessionOf(await browser.send("/auth/session")))?.user?.email).toBe(USER.email)
        browser.jar.cookies.delete("authjs.session-token")
      }
    })

    it("works with only one of the app-level parsers mounted", async () => {
      for (const parser of [factory.json(), factory.urlencoded({ extended: true })]) {
        const app = factory()
        app.use(parser)
        app.use("/auth", ExpressAuth(authConfig()))
        const browser = new Browser(await listen(app))
        for (const as of ["json", "form"] as const) {
          const signedIn = await browser.signIn("/auth", as)
          expect(signedIn.headers.get("location")).toBe(`${browser.origin}/dashboard`)
        }
      }
    })

    it('answers malformed JSON with 400 "Bad request."', async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      const browser = new Browser(await listen(app))
      await browser.csrf("/auth")
      for (const body of ["{not json", "[1,2]", "42"]) {
        const response = await browser.send("/auth/callback/credentials", {
          body,
          headers: { "content-type": "application/json" },
        })
        expect(response.status).toBe(400)
        expect(response.headers.get("content-type")).toBe("application/json")
        expect(await response.text()).toBe('"Bad request."')
      }
      expect(config.log.errors.map((e) => e.name)).toEqual(["UnknownAction", "UnknownAction", "UnknownAction"])
    })

    it("reads a form whose body arrives in a later packet than its headers, and one sent with them", async () => {
      const app = factory()
      app.use("/auth", ExpressAuth(authConfig()))
      const browser = new Browser(await listen(app))
      const { port } = new URL(browser.origin)
      const post = async (pauseMs: number | undefined): Promise<string> => {
        const csrfToken = await browser.csrf("/auth")
        const fields = { csrfToken, username: USER.email, password: PASSWORD, callbackUrl: "/dashboard" }
        const body = new URLSearchParams(fields).toString()
        const head = [
          "POST /auth/callback/credentials HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Content-Type: application/x-www-form-urlencoded",
          `Content-Length: ${body.length}`,
          `Cookie: ${browser.jar.header()}`,
          "Connection: close",
          "",
          "",
        ].join("\r\n")
        const socket = connect(Number(port), "127.0.0.1")
        await once(socket, "connect")
        const chunks: Buffer[] = []
        socket.on("data", (chunk: Buffer) => chunks.push(chunk))
        if (pauseMs === undefined) socket.write(head + body)
        else {
          // the request event has run (and found no body yet) before the body is sent
          socket.write(head)
          await new Promise((resolve) => setTimeout(resolve, pauseMs))
          socket.write(body)
        }
        await once(socket, "close")
        return Buffer.concat(chunks).toString("latin1")
      }
      for (const pauseMs of [50, undefined]) {
        const answer = await post(pauseMs)
        expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 303 See Other")
        expect(answer).toContain(`\r\nLocation: ${browser.origin}/dashboard\r\n`)
      }
    })

    it("refuses a body over 1 MB with 400 and keeps serving", async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      const browser = new Browser(await listen(app))
      const csrfToken = await browser.csrf("/auth")
      const big = { csrfToken, username: USER.email, password: "x".repeat(1024 * 1024 + 1) }
      for (const as of ["form", "json"] as const) {
        const response = await browser.send("/auth/callback/credentials", as === "form" ? { form: big } : { json: big })
        expect(response.status).toBe(400)
        expect(await response.json()).toBe("Bad request.")
      }
      // a streamed body without Content-Length is bounded too
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const chunk = new TextEncoder().encode("a".repeat(64 * 1024))
          for (let i = 0; i < 20; i++) controller.enqueue(chunk)
          controller.close()
        },
      })
      const streamed = await fetch(`${browser.origin}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: browser.jar.header() },
        body: stream,
        duplex: "half",
        redirect: "manual",
      } as RequestInit)
      expect(streamed.status).toBe(400)
      expect(await browser.csrf("/auth")).toBe(csrfToken)
      expect((await browser.signIn("/auth", "form")).status).toBe(303)
    })

    it("getSession(req) on an app without ExpressAuth throws a clear error", async () => {
      const app = factory()
      app.get(
        "/me",
        sessionRoute((req) => getSession(req)),
      )
      // Express 4: getSession hands the error to the app's error handler (its router ignores promises)
      app.use(errorHandler)
      const browser = new Browser(await listen(app))
      const response = await browser.send("/me")
      expect(response.status).toBe(500)
      const { message } = (await response.json()) as { message: string }
      expect(message).toMatch(/no ExpressAuth/)
      expect(message).toMatch(/getSession\(req, config\)/)
    })

    it("getSession(req, config) throws the configuration error on every call, logged once (never a null that reads as signed out)", async () => {
      const config = authConfig({ secret: "too short" })
      const app = factory()
      app.get(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      app.use(errorHandler)
      const browser = new Browser(await listen(app))
      for (let i = 0; i < 2; i++) {
        const response = await browser.send("/me")
        expect(response.status).toBe(500)
        expect(((await response.json()) as { message: string }).message).toMatch(/at least 32 characters/)
      }
      expect(config.log.errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingSecret"])
    })

    it("getSession(req, config, res) forwards a refreshed session cookie; without res it does not", async () => {
      const config = authConfig({ session: { updateAge: 0 } })
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req, res) => getSession(req, config, res)),
      )
      app.get(
        "/me-quiet",
        sessionRoute((req) => getSession(req, config)),
      )
      const browser = new Browser(await listen(app))
      await browser.signIn("/auth", "form")
      const first = browser.jar.get("authjs.session-token")

      const quiet = await browser.send("/me-quiet")
      expect(quiet.headers.getSetCookie()).toEqual([])

      await new Promise((r) => setTimeout(r, 5))
      const refreshed = await browser.send("/me")
      const cookies = refreshed.headers.getSetCookie().map(parseSetCookie)
      expect(cookies.map((c) => c.name)).toEqual(["authjs.session-token"])
      expect(cookies[0]?.attributes.httponly).toBe(true)
      expect(cookies[0]?.attributes.expires).toBeTruthy()
      expect(browser.jar.get("authjs.session-token")).not.toBe(first)
      expect(((await refreshed.json()) as { session: Session }).session.user?.email).toBe(USER.email)
      expect((await sessionOf(await browser.send("/auth/session")))?.user?.email).toBe(USER.email)
    })

    it("a refreshing session middleware before ExpressAuth: one Set-Cookie per name, the auth route's wins", async () => {
      const config = authConfig({ session: { updateAge: 0 } })
      const app = factory()
      app.use(async (req: Req, res: Res, next: NextFunction) => {
        try {
          res.locals.session = await getSession(req, config, res)
          next()
        } catch (err) {
          next(err)
        }
      })
      app.use("/auth", ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req, res) => getSession(req, config, res)),
      )
      const browser = new Browser(await listen(app))
      await browser.signIn("/auth", "form")

      const me = await browser.send("/me")
      expect(setCookieNames(me)).toEqual(["authjs.session-token"])

      const signedOut = await browser.send("/auth/signout", { form: { csrfToken: await browser.csrf("/auth") } })
      expect(signedOut.status).toBe(303)
      const lines = signedOut.headers
        .getSetCookie()
        .map(parseSetCookie)
        .filter((c) => c.name === "authjs.session-token")
      expect(lines).toHaveLength(1)
      expect(lines[0]?.attributes["max-age"]).toBe("0")
      expect(await sessionOf(await browser.send("/auth/session"))).toBeNull()
    })

    it("getSession(req, config) answers null when the session cannot be read (a throwing session callback), logged", async () => {
      const config = authConfig({
        callbacks: {
          session: () => {
            throw new Error("callback bug")
          },
        },
      })
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      app.get(
        "/me",
        sessionRoute((req) => getSession(req, config)),
      )
      const browser = new Browser(await listen(app))
      await browser.signIn("/auth", "form")
      const me = await browser.send("/me")
      expect(me.status).toBe(200)
      expect(await me.json()).toEqual({ session: null })
      expect(config.log.errors.length).toBeGreaterThan(0)
    })

    it("answers a Host header that makes no URL with 400", async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      const origin = await listen(app)
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${origin}/auth/csrf`, { headers: { host: "bad host" } }, (res) => {
          let body = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => (body += chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on("error", reject)
        req.end()
      })
      expect(status).toBe(400)
      expect(body).toBe('"Bad request."')
    })

    it("res.locals.session middleware and a route guard", async () => {
      const config = authConfig()
      const app = factory()
      app.use("/auth", ExpressAuth(config))
      app.use(async (req: Req, res: Res, next: NextFunction) => {
        try {
          res.locals.session = await getSession(req, config, res)
          next()
        } catch (err) {
          next(err)
        }
      })
      const requireUser = (req: Req, res: Res, next: NextFunction) => {
        const session = res.locals.session as Session | null
        if (session?.user) return next()
        res.redirect(`/login?callbackUrl=${encodeURIComponent(req.originalUrl)}`)
      }
      app.get("/login", (_req, res) => void res.send("login"))
      app.get("/private", requireUser, (_req, res) => {
        res.json({ hello: (res.locals.session as Session).user?.name })
      })
      const browser = new Browser(await listen(app))

      const guarded = await browser.send("/private")
      expect(guarded.status).toBe(302)
      expect(guarded.headers.get("location")).toBe("/login?callbackUrl=%2Fprivate")

      await browser.signIn("/auth", "form", PASSWORD, "/private")
      const allowed = await browser.send("/private")
      expect(allowed.status).toBe(200)
      expect(await allowed.json()).toEqual({ hello: USER.name })
    })

    it("inside a router: routes under the full mount path, getSession(req) finds the config", async () => {
      const config = authConfig()
      const app = factory()
      const router = factory.Router()
      router.use("/auth", ExpressAuth(config))
      app.use("/v1", router)
      app.get(
        "/me",
        sessionRoute((req) => getSession(req)),
      )
      const browser = new Browser(await listen(app))
      const signedIn = await browser.signIn("/v1/auth", "form", "wrong")
      expect(signedIn.headers.get("location")).toBe(`${browser.origin}/v1/auth/signin?error=CredentialsSignin&code=credentials`)
      await browser.signIn("/v1/auth", "json")
      const me = await browser.send("/me")
      expect(((await me.json()) as { session: Session }).session.user?.email).toBe(USER.email)
    })

    it("never mutates the config it was given", async () => {
      const config = authConfig()
      const snapshot = { ...config }
      const app = factory()
      app.use("/api/auth", ExpressAuth(config))
      app.use(splat, ExpressAuth(config))
      const browser = new Browser(await listen(app))
      expect((await browser.send("/api/auth/session")).status).toBe(200)
      expect((await browser.send("/auth/session")).status).toBe(200)
      expect(config).toEqual(snapshot)
      expect("basePath" in config).toBe(false)
    })
  })
})
