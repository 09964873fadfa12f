/**
 * `GET <mount>/session` through `ExpressAuth` answers what `Auth()` answers for the same request: the
 * same status and status text, the same body bytes, the same headers with the same values, the same
 * `Set-Cookie` lines (a re-issued token compared by its claims, its JWE being new each time), on Express 4
 * and 5, mounted at `/auth`, on a splat and at the root under `basePath`, with Express' `X-Powered-By`
 * on and off. Only the order of the headers and the ones Node adds (Date, Connection, Keep-Alive,
 * Content-Length, which must match the body) may differ. Also how the answer is framed: no length on
 * 204/304 and HEAD, a repeated header kept, a writeHead wrapper that sets the headers itself.
 */
import { createRequire } from "node:module"
import { request as httpRequest } from "node:http"
import express, { type Express, type NextFunction, type Request as Req, type Response as Res } from "express"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { ExpressAuth, type ExpressAuthConfig } from "../src/integration/express.js"
import { Auth, revokeSessions } from "../src/index.js"
import { decode, encode } from "../src/jwt.js"
import Credentials from "../src/providers/credentials.js"
import type { JWT } from "../src/types.js"
import { SECRET, captureLogger, tamperJwe } from "./helpers.js"
import { servesApps } from "./support/express-apps.js"

type ExpressFactory = typeof express
const express4 = createRequire(import.meta.url)("express4") as ExpressFactory

const PLAIN = "authjs.session-token"
const SECURE = "__Secure-authjs.session-token"
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0)
const DAY = 86_400_000
const USER = { sub: "u1", name: "Ada Lovelace", email: "ada@example.test", picture: null }

interface Variant {
  readonly config: ExpressAuthConfig
  readonly sessionEvents: JWT[]
}

function variant(extra: Partial<ExpressAuthConfig> = {}): Variant {
  const sessionEvents: JWT[] = []
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: captureLogger().logger,
    providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: () => null })],
    events: { session: ({ token: t }) => void (t && sessionEvents.push(t)) },
    ...extra,
  }
  return { config, sessionEvents }
}

/** A session token for `claims`, made `ageMs` before now (its `iat`, and its `exp` from then). */
async function token(claims: JWT, salt: string, ageMs = 0, maxAge?: number): Promise<string> {
  vi.setSystemTime(NOW - ageMs)
  try {
    return await encode({ token: claims, secret: SECRET, salt, ...(maxAge === undefined ? {} : { maxAge }) })
  } finally {
    vi.setSystemTime(NOW)
  }
}

/** The Cookie header carrying `value` under `name`, in chunks of `size` characters when asked. */
function cookieHeader(name: string, value: string, size?: number): string {
  if (!size) return `${name}=${value}`
  const parts: string[] = []
  for (let i = 0; i * size < value.length; i++) parts.push(`${name}.${i}=${value.slice(i * size, (i + 1) * size)}`)
  return parts.join("; ")
}

// ---------------------------------------------------------------------------------------------------------
// Both answers, in one comparable form

interface Answer {
  readonly status: number
  readonly statusText: string
  /** `name: value` (name lower-cased) of every header but Set-Cookie and those Node adds, sorted. */
  readonly headers: string[]
  readonly setCookies: string[]
  readonly body: string
}

const NODE_ADDS = new Set(["date", "connection", "keep-alive", "content-length", "x-powered-by"])

const serve = servesApps()

beforeAll(() => {
  // Date alone: Node's HTTP code keeps its own clock
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(NOW)
})
afterAll(() => vi.useRealTimers())

interface Mounting {
  readonly name: string
  readonly express: ExpressFactory
  /** `app.use` path, or undefined: mounted at the root (the config's basePath). */
  readonly path: string | undefined
  readonly poweredBy: boolean
}

async function listen(mounting: Mounting, config: ExpressAuthConfig, before?: (app: Express) => void): Promise<string> {
  const app = mounting.express()
  if (!mounting.poweredBy) app.disable("x-powered-by")
  app.set("trust proxy", "loopback")
  before?.(app)
  if (mounting.path === undefined) app.use(ExpressAuth(config))
  else app.use(mounting.path, ExpressAuth(config))
  return (await serve(app)).base
}

/** One raw HTTP request: status line, every header line as sent, body. */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Answer & { length?: string; chunked: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const pairs: string[] = []
        const setCookies: string[] = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = (res.rawHeaders[i] as string).toLowerCase()
          const value = res.rawHeaders[i + 1] as string
          if (name === "set-cookie") setCookies.push(value)
          else if (!NODE_ADDS.has(name)) pairs.push(`${name}: ${value}`)
        }
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          headers: pairs.sort(),
          setCookies,
          body: Buffer.concat(chunks).toString("utf8"),
          length: res.headers["content-length"],
          chunked: res.headers["transfer-encoding"] !== undefined,
        })
      })
    })
    req.on("error", reject)
    req.end()
  })
}

async function viaAuth(config: ExpressAuthConfig, method: string, url: string, headers: Record<string, string>): Promise<Answer> {
  const response = await Auth(new Request(url, { method, headers }), config)
  const pairs: string[] = []
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") pairs.push(`${name}: ${value}`)
  })
  return {
    status: response.status,
    statusText: response.statusText,
    headers: pairs.sort(),
    setCookies: response.headers.getSetCookie(),
    body: method === "HEAD" ? "" : await response.text(),
  }
}

/**
 * A re-issued session cookie's line with its value taken out, and its value's claims without `jti`
 * (a new random id in each answer); any other line as it is.
 */
async function comparableCookies(lines: readonly string[], salt: string): Promise<unknown[]> {
  const chunks = new Map<string, string>()
  const out: unknown[] = []
  for (const line of lines) {
    const eq = line.indexOf("=")
    const semi = line.indexOf(";")
    const name = line.slice(0, eq)
    const value = line.slice(eq + 1, semi === -1 ? undefined : semi)
    const isSession = name === salt || name.startsWith(`${salt}.`)
    if (!isSession || value === "") {
      out.push(line)
      continue
    }
    chunks.set(name, value)
    out.push(`${name}=<jwe>${line.slice(semi)}`)
  }
  const byIndex = (name: string) => Number(name.slice(salt.length + 1))
  const whole =
    chunks.get(salt) ??
    [...chunks.keys()]
      .sort((a, b) => byIndex(a) - byIndex(b))
      .map((k) => chunks.get(k))
      .join("")
  if (whole) {
    const { jti: _jti, ...claims } = (await decode({ token: whole, secret: SECRET, salt })) ?? {}
    out.push({ claims })
  }
  return out
}

async function expectSameAnswer(
  mounting: Mounting,
  v: Variant,
  request: { method?: string; headers: Record<string, string>; authUrl: string; salt?: string },
  before?: (app: Express) => void,
): Promise<Answer> {
  const base = await listen(mounting, v.config, before)
  const method = request.method ?? "GET"
  const path = "/auth/session"
  const express = await send(base, method, path, request.headers)
  const web = await viaAuth(v.config, method, request.authUrl, request.headers)
  const salt = request.salt ?? PLAIN
  expect(express.status).toBe(web.status)
  expect(express.statusText).toBe(web.statusText)
  expect(express.body).toBe(web.body)
  expect(express.headers).toEqual(web.headers)
  expect(express.setCookies.length).toBe(web.setCookies.length)
  expect(await comparableCookies(express.setCookies, salt)).toEqual(await comparableCookies(web.setCookies, salt))
  expect(express.chunked).toBe(false)
  if (method === "HEAD") {
    // Node sends no length for a HEAD answer
    expect(express.length).toBeUndefined()
  } else {
    expect(express.length).toBe(String(Buffer.byteLength(express.body)))
  }
  return express
}

// ---------------------------------------------------------------------------------------------------------

const mountings: Mounting[] = [
  { name: "Express 5 at /auth", express, path: "/auth", poweredBy: true },
  { name: "Express 5 at /auth/*splat", express, path: "/auth/*splat", poweredBy: false },
  { name: "Express 5 at the root (basePath)", express, path: undefined, poweredBy: false },
  { name: "Express 4 at /auth", express: express4, path: "/auth", poweredBy: false },
  { name: "Express 4 at /auth/*", express: express4, path: "/auth/*", poweredBy: true },
  { name: "Express 4 at the root (basePath)", express: express4, path: undefined, poweredBy: true },
]

const AT = "http://127.0.0.1/auth/session"

describe.each(mountings)("GET /session through ExpressAuth answers as Auth() does: $name", (mounting) => {
  it("no cookie: null, no cookie set", async () => {
    const v = variant()
    const answer = await expectSameAnswer(mounting, v, { headers: {}, authUrl: AT })
    expect(answer.body).toBe("null")
  })

  it("a valid token: the session, no cookie re-issued, the session event fired on each", async () => {
    const v = variant()
    const value = await token(USER, PLAIN, 60_000)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(JSON.parse(answer.body).user).toEqual({ name: USER.name, email: USER.email, image: null })
    expect(answer.setCookies).toEqual([])
    expect(v.sessionEvents.map((t) => t.sub)).toEqual(["u1", "u1"])
  })

  it("X-Auth-Return-Redirect changes nothing on a read", async () => {
    const v = variant()
    const value = await token(USER, PLAIN, 60_000)
    await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value), "x-auth-return-redirect": "1" }, authUrl: AT })
  })

  it("an expired token: null, the cookie cleared", async () => {
    const v = variant()
    const value = await token(USER, PLAIN, 2 * DAY, 60)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.body).toBe("null")
    expect(answer.setCookies).toHaveLength(1)
  })

  it("a tampered token: null, the cookie cleared", async () => {
    const v = variant()
    const value = tamperJwe(await token(USER, PLAIN))
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.body).toBe("null")
  })

  it("a stale token: the session, the cookie re-issued with the same claims", async () => {
    const v = variant()
    const value = await token(USER, PLAIN, 2 * DAY)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.setCookies).toHaveLength(1)
  })

  it("a chunked token, fresh and stale (re-issued in chunks)", async () => {
    const v = variant()
    const big = { ...USER, note: "n".repeat(5000) }
    const fresh = await token(big, PLAIN, 60_000)
    const freshAnswer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, fresh, 3000) }, authUrl: AT })
    expect(JSON.parse(freshAnswer.body).user.name).toBe(USER.name)
    const stale = await token(big, PLAIN, 2 * DAY)
    const staleAnswer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, stale, 3000) }, authUrl: AT })
    expect(staleAnswer.setCookies.length).toBeGreaterThan(1)
  })

  it("a jwt callback answering null: null, the cookie cleared", async () => {
    const v = variant({ callbacks: { jwt: () => null } })
    const value = await token(USER, PLAIN, 60_000)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.body).toBe("null")
  })

  it("a jwt callback changing the token re-issues it; a session callback shapes the body", async () => {
    const v = variant({
      callbacks: {
        jwt: ({ token: t }) => ({ ...t, role: "admin" }),
        session: ({ session, token: t }) => ({ ...session, role: t.role }),
      },
    })
    const value = await token(USER, PLAIN, 60_000)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(JSON.parse(answer.body).role).toBe("admin")
    expect(answer.setCookies).toHaveLength(1)
  })

  it("a jwt callback changing the token in place (the same object handed back) re-issues it", async () => {
    const v = variant({
      callbacks: {
        jwt: ({ token: t }) => {
          t.role = "admin"
          return t
        },
      },
    })
    const value = await token(USER, PLAIN, 60_000)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.setCookies).toHaveLength(1)
    const reissued = answer.setCookies[0]?.split(";")[0]?.slice(PLAIN.length + 1) ?? ""
    expect((await decode({ token: reissued, secret: SECRET, salt: PLAIN }))?.role).toBe("admin")
  })

  it("a revoked session: null, the cookie cleared", async () => {
    const v = variant()
    const value = await token(USER, PLAIN, 60_000)
    await revokeSessions("u1", v.config)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(PLAIN, value) }, authUrl: AT })
    expect(answer.body).toBe("null")
    expect(answer.setCookies).toHaveLength(1)
  })

  it("an untrusted host: 500 with the configuration message", async () => {
    const v = variant({ trustHost: ["app.example.test"] })
    const answer = await expectSameAnswer(mounting, v, { headers: {}, authUrl: AT })
    expect(answer.status).toBe(500)
  })

  it("a malformed Host: 400 Bad request.", async () => {
    const v = variant()
    // Auth() cannot be sent such a Host; a path that names no action gets the same 400 answer
    const answer = await expectSameAnswer(mounting, v, { headers: { host: "bad host" }, authUrl: "http://127.0.0.1/auth/nothing-here" })
    expect(answer.status).toBe(400)
    expect(answer.body).toBe('"Bad request."')
  })

  it("https through trust proxy and X-Forwarded-Proto: the __Secure- cookie is read and re-issued", async () => {
    const v = variant()
    const value = await token(USER, SECURE, 2 * DAY)
    const answer = await expectSameAnswer(mounting, v, {
      headers: { cookie: cookieHeader(SECURE, value), "x-forwarded-proto": "https" },
      authUrl: "https://127.0.0.1/auth/session",
      salt: SECURE,
    })
    expect(answer.setCookies[0]).toMatch(/^__Secure-authjs\.session-token=.*; Secure/)
  })

  it("useSecureCookies over plain http", async () => {
    const v = variant({ useSecureCookies: true })
    const value = await token(USER, SECURE, 60_000)
    const answer = await expectSameAnswer(mounting, v, { headers: { cookie: cookieHeader(SECURE, value) }, authUrl: AT, salt: SECURE })
    expect(JSON.parse(answer.body).user.email).toBe(USER.email)
  })

  it("HEAD: 400 Bad request. with no body and no length", async () => {
    const v = variant()
    await expectSameAnswer(mounting, v, { method: "HEAD", headers: {}, authUrl: AT })
  })

  it("headers and cookies set by earlier middleware: ours replace theirs by name, their other cookies stay", async () => {
    const v = variant()
    const value = tamperJwe(await token(USER, PLAIN))
    const base = await listen(mounting, v.config, (app) =>
      app.use((_req: Req, res: Res, next: NextFunction) => {
        res.setHeader("Set-Cookie", ["theme=dark; Path=/", `${PLAIN}=old; Path=/`])
        res.setHeader("Cache-Control", "public, max-age=60")
        res.setHeader("X-Trace", "t1")
        next()
      }),
    )
    const answer = await send(base, "GET", "/auth/session", { cookie: cookieHeader(PLAIN, value) })
    expect(answer.status).toBe(200)
    expect(answer.setCookies[0]).toBe("theme=dark; Path=/")
    expect(answer.setCookies.slice(1)).toEqual([expect.stringMatching(new RegExp(`^${PLAIN}=; `))])
    expect(answer.headers).toContain("cache-control: private, no-cache, no-store")
    expect(answer.headers).not.toContain("cache-control: public, max-age=60")
    expect(answer.headers).toContain("x-trace: t1")
    expect(answer.length).toBe(String(Buffer.byteLength(answer.body)))
  })
})

describe("answers without a body keep Node's framing", () => {
  it.each([204, 304])("a route answering %i sends no Content-Length", async (status) => {
    const v = variant({
      routes: [{ method: "GET", action: "ping", provider: false, handle: async () => ({ response: { status } }) }],
    })
    const base = await listen({ name: "Express 5", express, path: "/auth", poweredBy: false }, v.config)
    const answer = await send(base, "GET", "/auth/ping", {})
    expect(answer.status).toBe(status)
    expect(answer.length).toBeUndefined()
    expect(answer.chunked).toBe(false)
  })

  it("an empty 200 answer says Content-Length: 0, as Node did", async () => {
    const v = variant({
      routes: [{ method: "GET", action: "ping", provider: false, handle: async () => ({ response: { status: 200 } }) }],
    })
    const base = await listen({ name: "Express 5", express, path: "/auth", poweredBy: false }, v.config)
    const answer = await send(base, "GET", "/auth/ping", {})
    expect(answer.status).toBe(200)
    expect(answer.length).toBe("0")
  })
})

describe("a header an answer names twice (in two cases) goes out as two lines", () => {
  it.each([false, true])("X-Powered-By %s", async (poweredBy) => {
    const v = variant({
      routes: [
        {
          method: "GET",
          action: "ping",
          provider: false,
          handle: async () => ({
            response: { status: 200, headers: { "Content-Type": "text/plain", "X-Note": "a", "x-note": "b" }, body: "ok" },
          }),
        },
      ],
    })
    const base = await listen({ name: "Express 5", express, path: "/auth", poweredBy }, v.config)
    const answer = await send(base, "GET", "/auth/ping", {})
    expect(answer.body).toBe("ok")
    expect(answer.headers.filter((line) => line.startsWith("x-note:"))).toEqual(["x-note: a", "x-note: b"])
    expect(answer.length).toBe("2")
  })
})

describe("a wrapper of writeHead that knows only its object and [name, value] forms (on-headers before 1.1, under morgan or compression)", () => {
  /** Sets writeHead's headers one by one, as such a wrapper does, then writes the head with none. */
  function headersFirst(_req: Req, res: Res, next: NextFunction): void {
    const writeHead = res.writeHead.bind(res)
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const reason = typeof rest[0] === "string" ? rest[0] : undefined
      const given = typeof rest[0] === "string" ? rest[1] : rest[0]
      if (Array.isArray(given)) for (const pair of given) res.setHeader(pair[0], pair[1])
      else if (given && typeof given === "object") for (const [name, value] of Object.entries(given)) res.setHeader(name, value)
      return reason === undefined ? writeHead(status) : writeHead(status, reason)
    }) as Res["writeHead"]
    next()
  }

  it.each([false, true])("the answer is unchanged, X-Powered-By %s", async (poweredBy) => {
    const v = variant()
    const value = await token(USER, PLAIN, 2 * DAY)
    const mounting = { name: "Express 5", express, path: "/auth", poweredBy }
    const plain = await send(await listen(mounting, v.config), "GET", "/auth/session", { cookie: cookieHeader(PLAIN, value) })
    const wrapped = await send(await listen(mounting, v.config, (app) => app.use(headersFirst)), "GET", "/auth/session", {
      cookie: cookieHeader(PLAIN, value),
    })
    expect(wrapped.status).toBe(plain.status)
    expect(wrapped.body).toBe(plain.body)
    expect(wrapped.headers).toEqual(plain.headers)
    expect(await comparableCookies(wrapped.setCookies, PLAIN)).toEqual(await comparableCookies(plain.setCookies, PLAIN))
    expect(wrapped.setCookies).toHaveLength(1)
    expect(wrapped.length).toBe(String(Buffer.byteLength(wrapped.body)))
  })
})
