/**
 * Attack class: malformed request input at the edge (500s escaping to Express). A forged
 * `X-Forwarded-Proto: javascript` behind `trust proxy`, a `Host` that is no host (`x/y`, userinfo, a port
 * out of range), broken or hostile cookies: the auth routes answer 400 `UnknownAction` (or their normal
 * answer), `getSession` answers `null`, and nothing ever reaches Express' error handler or crashes the
 * process, on Express 4 and 5, with the getting-started guide's `res.locals.session` middleware in front of the app.
 */
import type { NextFunction, Request as Req, Response as Res } from "express"
import { describe, expect, it } from "vitest"
import { Auth } from "../../src/index.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../../src/integration/express.js"
import Credentials from "../../src/providers/credentials.js"
import { SECRET, captureLogger } from "../helpers.js"
import { expressVersions as versions, servesApps } from "../support/express-apps.js"
import { withEnv } from "../support/raw-http.js"

const listen = servesApps()

function makeConfig(): ExpressAuthConfig & { log: ReturnType<typeof captureLogger> } {
  const log = captureLogger()
  return {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [Credentials({ credentials: { username: {} }, authorize: () => null })],
    log,
  }
}

/** Bad protocol or host: the auth routes answer 400 "Bad request."; getSession null. */
const badOrigins: ReadonlyArray<[string, Record<string, string>]> = [
  ["X-Forwarded-Proto: javascript", { "x-forwarded-proto": "javascript" }],
  ["X-Forwarded-Proto: data", { "x-forwarded-proto": "data" }],
  ["X-Forwarded-Proto: ftp", { "x-forwarded-proto": "ftp" }],
  ["X-Forwarded-Proto: javascript, https", { "x-forwarded-proto": "javascript, https" }],
  ["Host: x/y", { host: "x/y" }],
  ["Host with userinfo", { host: "evil.test@app.test" }],
  ["Host with a port out of range", { host: "app.test:99999" }],
  ["Host: unclosed IPv6 bracket", { host: "[::1" }],
  ["Host with a backslash", { host: "app.test\\evil.test" }],
  ["X-Forwarded-Host: x/y", { "x-forwarded-host": "x/y" }],
]

/** Hostile cookies on a valid origin: normal answers (no session). */
const badCookies: ReadonlyArray<[string, string]> = [
  ["a broken percent escape", "authjs.session-token=%E0%A4%A"],
  ["a token that is not a JWE", "authjs.session-token=not.a.jwe.at.all"],
  ["prototype names", "__proto__=1; constructor=2; toString=3; authjs.session-token="],
  ["broken chunks", "authjs.session-token.0=abc; authjs.session-token.1=%%%"],
  ["a hostile csrf and callback-url cookie", "authjs.csrf-token=%ZZ|x; authjs.callback-url=javascript:alert(1)"],
  ["a flow cookie of garbage", "authchart.flow=eyJhbGciOiJub25lIn0.e30.; authchart.flow.0=x"],
  ["a huge cookie", `authjs.session-token=${"a".repeat(8000)}`],
]

describe.each(versions)("$name: malformed request input never escapes as a 5xx", ({ factory }) => {
  async function serve(env: Record<string, string | undefined> = { AUTH_URL: undefined }) {
    const config = makeConfig()
    const forwarded: unknown[] = []
    const app = factory()
    app.set("trust proxy", true)
    withEnv(env, () => app.use("/auth", ExpressAuth(config)))
    // the getting-started guide's middleware
    app.use((req: Req, res: Res, next: NextFunction) => {
      getSession(req, config, res).then((session) => {
        res.locals.session = session
        next()
      }, next)
    })
    app.get("/me", (_req: Req, res: Res) => void res.json({ session: res.locals.session ?? null }))
    app.use((err: unknown, _req: Req, res: Res, _next: NextFunction) => {
      forwarded.push(err)
      res.status(599).end()
    })
    return { app: await listen(app), config, forwarded }
  }

  it.each(badOrigins)("%s: auth routes 400 UnknownAction, getSession null", async (_name, headers) => {
    const { app, config, forwarded } = await serve()
    for (const path of ["/auth/session", "/auth/signin", "/auth/callback/nobody", "/auth/error?error=x"]) {
      const res = await app.send(path, { headers })
      expect(res.status, path).toBe(400)
      expect(res.body).toBe('"Bad request."')
      expect(res.location).toBeUndefined()
    }
    const post = await app.send("/auth/signin/credentials", { headers, form: { csrfToken: "x" } })
    expect(post.status).toBe(400)
    const me = await app.send("/me", { headers })
    expect(me.status).toBe(200)
    expect(JSON.parse(me.body)).toEqual({ session: null })
    expect(forwarded).toEqual([])
    expect(config.log.errors.every((e) => (e as { type?: string }).type === "UnknownAction")).toBe(true)
  })

  it.each(badCookies)("cookies with %s: normal answers, getSession null", async (_name, cookie) => {
    const { app, forwarded } = await serve()
    const headers = { host: "app.test", cookie }
    const session = await app.send("/auth/session", { headers })
    expect(session.status).toBe(200)
    expect(JSON.parse(session.body)).toBeNull()
    for (const path of ["/auth/signin", "/auth/csrf", "/auth/providers", "/auth/callback/credentials"]) {
      expect((await app.send(path, { headers })).status, path).toBeLessThan(500)
    }
    const post = await app.send("/auth/session", { headers, form: { csrfToken: "x" } })
    expect(post.status).toBeLessThan(500)
    const me = await app.send("/me", { headers })
    expect(me.status).toBe(200)
    expect(JSON.parse(me.body)).toEqual({ session: null })
    expect(forwarded).toEqual([])
  })

  it("with AUTH_URL set, a forged X-Forwarded-Proto/Host is never read: the routes work", async () => {
    const { app, forwarded } = await serve({ AUTH_URL: "https://app.example.test/auth" })
    const headers = { host: "x/y", "x-forwarded-proto": "javascript", "x-forwarded-host": "x/y" }
    const page = await app.send("/auth/signin", { headers })
    expect(page.status).toBe(200)
    expect(page.body).toContain("https://app.example.test/auth/callback/credentials")
    const me = await app.send("/me", { headers })
    expect(JSON.parse(me.body)).toEqual({ session: null })
    expect(forwarded).toEqual([])
  })
})

describe("Auth() (no Express): malformed input is a 400 or a normal answer, never a 500", () => {
  it("a non-http(s) request URL is 400 UnknownAction", async () => {
    const { log, ...config } = makeConfig()
    const res = await Auth(new Request("ftp://app.test/auth/signin"), config)
    expect(res.status).toBe(400)
    expect(await res.json()).toBe("Bad request.")
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["UnknownAction"])
  })

  it.each(badCookies)("cookies with %s: GET /session answers null", async (_name, cookie) => {
    const { log: _log, ...config } = makeConfig()
    const res = await Auth(new Request("http://app.test/auth/session", { headers: { cookie } }), config)
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
  })
})
