/**
 * Express at the edges of an app: `ExpressAuth` mounted at the root leaves the app's own routes (and
 * their bodies) alone, the config is validated once at start-up, and a proxy's `X-Forwarded-*` that
 * Express ignores (`trust proxy` off) is warned about once. Express 4 and 5, over real HTTP.
 */
import express, { type Request as Req, type Response as Res } from "express"
import { describe, expect, it, vi } from "vitest"
import { Auth } from "../src/index.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import { SECRET, captureLogger } from "./helpers.js"
import { expressVersions as versions, servesApps } from "./support/express-apps.js"
import { withEnv } from "./support/raw-http.js"
import { requestUrl } from "../src/integration/express-request.js"
import { resolvedFor } from "../src/runtime/front/resolve.js"

const USER = { id: "u1", name: "Ada", email: "ada@example.test" }

const listen = servesApps()

function makeConfig(extra: Partial<ExpressAuthConfig> = {}) {
  const log = captureLogger()
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: ({ username, password }) => (username === USER.email && password === "pw" ? USER : null),
      }),
    ],
    ...extra,
  }
  return { config, log }
}

const types = (errors: Error[]) => errors.map((e) => (e as { type?: string }).type ?? e.name)

describe.each(versions)("$name: app.use(ExpressAuth(config)) at the root", ({ factory }) => {
  async function serve(extra: Partial<ExpressAuthConfig> = {}) {
    const { config, log } = makeConfig(extra)
    const app = factory()
    app.use(ExpressAuth(config))
    app.get("/hello", (_req: Req, res: Res) => void res.send("hello"))
    app.post("/echo", factory.json(), (req: Req, res: Res) => void res.json(req.body))
    return { app: await listen(app), log }
  }

  it("serves basePath and passes every other path (and its body) to the app", async () => {
    const { app, log } = await serve()
    const hello = await app.send("/hello")
    expect(hello.status).toBe(200)
    expect(hello.body).toBe("hello")
    const echo = await app.send("/echo", { headers: { "content-type": "application/json" }, body: '{"a":1}' })
    expect(echo.status).toBe(200)
    expect(JSON.parse(echo.body)).toEqual({ a: 1 })
    expect((await app.send("/authx/csrf")).status).toBe(404)
    expect((await app.send("/nothing-here")).status).toBe(404)

    const csrf = await app.send("/auth/csrf")
    expect(csrf.status).toBe(200)
    expect(JSON.parse(csrf.body)).toHaveProperty("csrfToken")
    const unknown = await app.send("/auth/nonsense")
    expect(unknown.status).toBe(400)
    expect(unknown.body).toBe('"Bad request."')
    expect(types(log.errors)).toEqual(["UnknownAction"])
  })

  it("signs in under the configured basePath", async () => {
    const { app } = await serve({ basePath: "/api/auth" })
    expect((await app.send("/auth/csrf")).status).toBe(404)
    const csrf = await app.send("/api/auth/csrf")
    const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
    const cookie = csrf.setCookies.map((c) => c.split(";")[0]).join("; ")
    const signIn = await app.send("/api/auth/callback/credentials", {
      headers: { host: "app.test", cookie },
      form: { csrfToken, username: USER.email, password: "pw" },
    })
    expect(signIn.status).toBe(303)
    expect(signIn.location).toBe("http://app.test")
    expect(signIn.setCookies.some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })
})

describe.each(versions)("$name: X-Forwarded-* ignored because trust proxy is off", ({ factory }) => {
  async function serve(options: { trustProxy?: boolean; env?: Record<string, string | undefined>; logger?: boolean } = {}) {
    const { config, log } = makeConfig()
    if (options.logger === false) delete config.logger
    const app = factory()
    if (options.trustProxy) app.set("trust proxy", true)
    withEnv(options.env ?? { AUTH_URL: undefined }, () => app.use("/auth", ExpressAuth(config)))
    app.get("/me", (req: Req, res: Res) => {
      getSession(req, config).then(
        (session) => res.json({ session }),
        () => res.status(500).end(),
      )
    })
    return { app: await listen(app), log }
  }
  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "app.example.test" }

  it("warns once, naming the Express setting, however many requests (auth routes and getSession)", async () => {
    const { app, log } = await serve()
    for (const path of ["/auth/session", "/auth/csrf", "/me", "/auth/session"]) {
      expect((await app.send(path, { headers: forwarded })).status).toBe(200)
    }
    expect(log.warnings).toEqual(["express-trust-proxy"])
  })

  it("the default logger's line says what to do", async () => {
    const lines: string[] = []
    const spy = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")))
    try {
      const { app } = await serve({ logger: false })
      await app.send("/auth/session", { headers: { "x-forwarded-proto": "https" } })
      await app.send("/auth/session", { headers: { "x-forwarded-proto": "https" } })
    } finally {
      spy.mockRestore()
    }
    const ours = lines.filter((l) => l.includes("[auth][warn][express-trust-proxy]"))
    expect(ours).toHaveLength(1)
    expect(ours[0]).toContain('app.set("trust proxy", 1)')
  })

  it.each([
    ["trust proxy is on", { trustProxy: true }],
    ["AUTH_URL pins the origin", { env: { AUTH_URL: "https://app.example.test/auth" } }],
  ])("no warning when %s", async (_name, options) => {
    const { app, log } = await serve(options)
    await app.send("/auth/session", { headers: forwarded })
    expect(log.warnings).toEqual([])
  })

  it("with trust proxy, X-Forwarded-Proto is read case-insensitively (HTTPS → secure cookie names)", async () => {
    const { app } = await serve({ trustProxy: true })
    const csrf = await app.send("/auth/csrf", { headers: { "x-forwarded-proto": "HTTPS" } })
    expect(csrf.status).toBe(200)
    expect(csrf.setCookies.map((c) => c.split("=")[0])).toEqual(["__Host-authjs.csrf-token"])
  })

  it("no warning without forwarded headers", async () => {
    const { app, log } = await serve()
    await app.send("/auth/session")
    expect(log.warnings).toEqual([])
  })
})

describe("configuration errors are found at start-up and logged once", () => {
  it("ExpressAuth(config) logs the error when called, not per request; the routes answer Auth.js' 500", async () => {
    const { config, log } = makeConfig({ secret: "too short" })
    const app = express()
    app.use("/auth", ExpressAuth(config))
    expect(types(log.errors)).toEqual(["MissingSecret"])
    expect(log.errors[0]?.message).toMatch(/at least 32 characters/)
    const listening = await listen(app)
    for (let i = 0; i < 3; i++) {
      const res = await listening.send("/auth/session")
      expect(res.status).toBe(500)
      expect(JSON.parse(res.body)).toEqual({
        message: "There was a problem with the server configuration. Check the server logs for more information.",
      })
    }
    expect(log.errors).toHaveLength(1)
  })

  it("Auth(): validated on the first call, logged once", async () => {
    const { config, log } = makeConfig({ secret: undefined })
    await withEnv({ AUTH_SECRET: undefined, AUTH_SECRET_1: undefined, AUTH_SECRET_2: undefined, AUTH_SECRET_3: undefined }, () =>
      Auth(new Request("http://app.test/auth/session"), config),
    )
    expect((await Auth(new Request("http://app.test/auth/csrf"), config)).status).toBe(500)
    expect(types(log.errors)).toEqual(["MissingSecret"])
  })
})

// The integration works the request's protocol out itself (reading Express' `req.protocol` getter cost a
// cache miss a request): it must answer what that getter answers, for every X-Forwarded-Proto shape.
describe.each(versions)("$name: the request's protocol is Express' req.protocol", ({ factory }) => {
  const protos = [undefined, "https", "HTTPS", " https ", "https, http", "http,https", "ftp", ""]
  it.each([
    ["trust proxy on", true],
    ["trust proxy off", false],
  ])("%s", async (_name, trust) => {
    const resolved = resolvedFor({ secret: SECRET, trustHost: true, providers: [] })
    const app = factory()
    if (trust) app.set("trust proxy", true)
    app.get("/p", (req: Req, res: Res) => {
      // a protocol Express gives that makes no origin is refused (UnknownAction): kept as its name
      let ours: string
      try {
        ours = requestUrl(req, resolved).protocol.slice(0, -1)
      } catch (err) {
        ours = (err as Error).name
      }
      res.json({ express: req.protocol, ours })
    })
    const served = await listen(app)
    for (const proto of protos) {
      const headers: Record<string, string> = proto === undefined ? {} : { "x-forwarded-proto": proto }
      const { express: theirs, ours } = JSON.parse((await served.send("/p", { headers })).body) as { express: string; ours: string }
      const expected = theirs.toLowerCase() === "http" || theirs.toLowerCase() === "https" ? theirs.toLowerCase() : "UnknownAction"
      expect({ proto, ours }).toEqual({ proto, ours: expected })
      if (!trust) expect(ours).toBe("http")
    }
  })
})
