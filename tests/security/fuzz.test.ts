/**
 * Fuzzing: a property-based fuzzer (fast-check) drives the mounted Express app over real HTTP (a server
 * on 127.0.0.1, a real OpenID provider, a real SMTP server) with random and adversarial requests
 * (tests/security/fuzz-inputs.ts). For every request:
 *  - never a 5xx (with an allow-list of hosts: only the documented `UntrustedHost` answer for another
 *    host, without redirect or cookie), never a hang, never a crash or an unhandled rejection;
 *  - `getSession` for the same request answers null or a session, never throws;
 *  - with a pinned origin (`url`), a redirect (Location or X-Auth-Return-Redirect `url`) never leaves
 *    the app's origin (the provider's authorization endpoint aside); with an allow-list, never to a host
 *    off the list; with a trusted proxy (any host), it is http(s);
 *  - no page carries the injected marker `<x-fz>` raw;
 *  - no body and no log line carries the secret, the client secret, a session token or a PKCE verifier.
 *
 * Seeded and reproducible: the seed is printed; `FUZZ_SEED=<seed>` replays a run, `FUZZ_RUNS=<n>` sets
 * the number of requests per app (`npm run fuzz` for a long run).
 */
import type { Server } from "node:http"
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { type ExpressAuthConfig, ExpressAuth, getSession } from "../../src/integration/express.js"
import Credentials from "../../src/providers/credentials.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import Passkey from "../../src/providers/passkey.js"
import { unsealEnvelope } from "../../src/runtime/engine/store.js"
import { parseSetCookie } from "../helpers.js"
import type { OidcServer } from "../support/oidc-provider.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"
import { type FuzzRequest, MARK, type NearValid, fuzzRequest } from "./fuzz-inputs.js"
import { CLIENT, SECRET, oidcAt, startIdp } from "./support.js"

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.FUZZ_RUNS ?? 700)
const REQUEST_TIMEOUT_MS = 10_000
/** Per fuzz test: generous for the CI default, and growing with FUZZ_RUNS for long runs. */
const TEST_TIMEOUT_MS = Math.max(120_000, RUNS * 100)

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

interface FuzzApp {
  origin: string
  host: string
  /** How the origin is decided: pinned `url`, any host behind a trusted proxy, or an allow-list of hosts. */
  mode: Mode
  /** What getSession did for the last request (reset before each). */
  last: { threw?: unknown; ran: boolean }
  stop(): Promise<void>
}

/**
 * Everything that must never show in a body or a log line; grows as tokens are issued. A sealed cookie
 * (session token, flow state) is caught by its protected header (`<header>.`): every token sealed under
 * one key shares it, so a few entries cover thousands of tokens and the check stays linear.
 */
const secrets = new Set<string>([SECRET, CLIENT.secret])
let verifiersSeen = 0
const logLines: string[] = []
const crashes: unknown[] = []
const onCrash = (reason: unknown) => void crashes.push(reason)

let idp: OidcServer
let smtp: SmtpCapture
let pinned: FuzzApp
let allowListed: FuzzApp
let proxied: FuzzApp
let real: NearValid

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })
}

type Mode = "pinned" | "proxy" | "allow-list"

async function startApp(mode: Mode): Promise<FuzzApp> {
  const server = createServer()
  const port = await listen(server)
  const origin = `http://127.0.0.1:${port}`
  const config: ExpressAuthConfig = {
    secret: SECRET,
    debug: true,
    ...(mode === "pinned" ? { url: `${origin}/auth` } : { trustHost: mode === "proxy" ? true : [`127.0.0.1:${port}`] }),
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    experimental: { enableWebAuthn: true },
    providers: [
      Credentials({
        credentials: { username: {} },
        authorize: ({ username }) => (username === "ada" ? { id: "u-ada", name: "Ada" } : null),
      }),
      oidcAt(idp, "idp"),
      Nodemailer({ server: smtp.url, from: "auth@example.test" }),
      Passkey(),
    ] as ExpressAuthConfig["providers"],
  }
  const last: FuzzApp["last"] = { ran: false }
  const app = express()
  if (mode !== "pinned") app.set("trust proxy", true)
  app.use(async (req, _res, next) => {
    last.ran = true
    try {
      await getSession(req, config)
    } catch (err) {
      last.threw = err
    }
    next()
  })
  app.use("/auth", ExpressAuth(config))
  app.get("/me", async (req, res) => void res.json(await getSession(req, config, res)))
  server.on("request", app)
  return {
    origin,
    host: `127.0.0.1:${port}`,
    mode,
    last,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Sends one request over HTTP; bounded in time. */
function send(app: FuzzApp, req: FuzzRequest): Promise<Reply> {
  const url = new URL(app.origin)
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: req.headers,
        agent: false,
        maxHeaderSize: 1 << 20,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", reject)
      },
    )
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)))
    outgoing.on("error", reject)
    outgoing.end(req.body)
  })
}

/** Sealed cookies (by their header) and PKCE verifiers a response handed out become secrets for every later check. */
async function learnSecrets(reply: Reply): Promise<void> {
  const lines = reply.headers["set-cookie"] ?? []
  for (const line of Array.isArray(lines) ? lines : [lines]) {
    const cookie = parseSetCookie(line)
    if (cookie.value.length < 40) continue
    const parts = cookie.value.split(".")
    if (parts.length === 5 && (parts[0] as string).length > 20) secrets.add(`${parts[0]}.`)
    if (cookie.name.includes("authchart.flow.") && !/\.\d+$/.test(cookie.name)) {
      const envelope = await unsealEnvelope(cookie.value, [SECRET], cookie.name).catch(() => null)
      const verifier = (envelope?.snapshot as { context?: { pending?: { codeVerifier?: string } } } | undefined)?.context?.pending
        ?.codeVerifier
      if (verifier) {
        secrets.add(verifier)
        verifiersSeen++
      }
    }
  }
}

function redirectTargets(reply: Reply): string[] {
  const targets: string[] = []
  if (typeof reply.headers.location === "string") targets.push(reply.headers.location)
  if (String(reply.headers["content-type"]).includes("application/json")) {
    try {
      const url = (JSON.parse(reply.body) as { url?: unknown } | null)?.url
      if (typeof url === "string") targets.push(url)
    } catch {
      // not JSON after all: no url
    }
  }
  return targets
}

/** The properties, for one request and its reply. Throws (and fast-check shrinks) on the first broken one. */
function check(app: FuzzApp, req: FuzzRequest, reply: Reply, newLogs: string[]): void {
  const what = `${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)}`
  if (app.mode === "allow-list" && reply.status === 500) {
    // the documented answer to a host outside the allow-list: UntrustedHost, no redirect, no cookie
    expect(
      newLogs.some((line) => line.includes("UntrustedHost")),
      `a 5xx is only UntrustedHost: ${what}`,
    ).toBe(true)
    expect(reply.headers.location, `UntrustedHost redirects nowhere: ${what}`).toBeUndefined()
    expect(reply.headers["set-cookie"], `UntrustedHost sets no cookie: ${what}`).toBeUndefined()
  } else {
    expect(reply.status, `never a 5xx: ${what}`).toBeLessThan(500)
  }
  expect(app.last.threw, `getSession never throws: ${what}`).toBeUndefined()
  for (const target of redirectTargets(reply)) {
    const resolved = new URL(target, app.origin)
    expect(["http:", "https:"], `a redirect is http(s): ${target} for ${what}`).toContain(resolved.protocol)
    if (app.mode === "pinned") {
      expect([app.origin, idp.issuer], `never a redirect off the origin: ${target} for ${what}`).toContain(resolved.origin)
    }
    if (app.mode === "allow-list") {
      expect([app.host, new URL(idp.issuer).host], `never a redirect to a host off the list: ${target} for ${what}`).toContain(
        resolved.host,
      )
    }
  }
  if (!String(reply.headers["content-type"]).includes("application/json")) {
    expect(reply.body.includes(MARK), `no raw reflection of ${MARK}: ${what}\n${reply.body.slice(0, 500)}`).toBe(false)
  }
  for (const secret of secrets) {
    expect(reply.body.includes(secret), `no secret or token in a body: ${what}`).toBe(false)
    expect(
      newLogs.find((line) => line.includes(secret)),
      `no secret or token in a log line: ${what}`,
    ).toBeUndefined()
  }
}

/** Real values of the pinned app: a csrf pair and token, Ada's session token, an OAuth flow cookie. */
async function nearValid(app: FuzzApp): Promise<NearValid> {
  const cookieOf = (reply: Reply, name: string) => {
    const lines = reply.headers["set-cookie"] ?? []
    const found = (Array.isArray(lines) ? lines : [lines]).map(parseSetCookie).find((c) => c.name === name)
    if (!found) throw new Error(`no ${name} cookie`)
    return found.value
  }
  const get = { method: "GET", headers: { host: app.host }, body: undefined }
  const csrf = await send(app, { ...get, path: "/auth/csrf" })
  const csrfToken = (JSON.parse(csrf.body) as { csrfToken: string }).csrfToken
  const csrfCookie = cookieOf(csrf, "authjs.csrf-token")
  const post = (path: string, form: Record<string, string>) =>
    send(app, {
      method: "POST",
      path,
      headers: {
        host: app.host,
        cookie: `authjs.csrf-token=${encodeURIComponent(csrfCookie)}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: Buffer.from(new URLSearchParams({ csrfToken, ...form }).toString()),
    })
  const signedIn = await post("/auth/callback/credentials", { username: "ada" })
  const started = await post("/auth/signin/idp", { callbackUrl: "/after" })
  await learnSecrets(signedIn)
  await learnSecrets(started)
  return {
    csrfToken,
    csrfCookie,
    sessionToken: cookieOf(signedIn, "authjs.session-token"),
    flowIdp: cookieOf(started, "authchart.flow.idp"),
    callbackUrl: cookieOf(started, "authjs.callback-url"),
  }
}

beforeAll(async () => {
  process.on("unhandledRejection", onCrash)
  process.on("uncaughtException", onCrash)
  for (const method of ["error", "warn", "debug", "info", "log"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logLines.push(args.map(String).join(" ")))
  }
  ;[idp, smtp] = await Promise.all([startIdp(["idp"]), startSmtp()])
  ;[pinned, proxied, allowListed] = await Promise.all([startApp("pinned"), startApp("proxy"), startApp("allow-list")])
  real = await nearValid(pinned)
  process.stdout.write(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} requests per app\n`)
})

afterAll(async () => {
  process.off("unhandledRejection", onCrash)
  process.off("uncaughtException", onCrash)
  vi.restoreAllMocks()
  await Promise.all([pinned?.stop(), proxied?.stop(), allowListed?.stop(), idp?.stop(), smtp?.stop()])
})

async function fuzz(target: FuzzApp): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fuzzRequest(real, target.host), async (req) => {
      target.last.threw = undefined
      target.last.ran = false
      const logsBefore = logLines.length
      const reply = await send(target, req)
      check(target, req, reply, logLines.slice(logsBefore))
      await learnSecrets(reply)
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  )
}

describe("fuzzing the mounted Express app over HTTP", () => {
  it(
    "fuzz: a pinned origin (url set): no 5xx, no off-origin redirect, no raw reflection, no secret in a body or a log line, getSession never throws",
    async () => {
      await fuzz(pinned)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    "fuzz: a trusted proxy (trust proxy, X-Forwarded-* honoured): no 5xx, http(s) redirects only, no raw reflection, no secret leaked, getSession never throws",
    async () => {
      await fuzz(proxied)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    "fuzz: an allow-listed host behind a trusted proxy: other hosts get only UntrustedHost, no redirect to a host off the list, no raw reflection, no secret leaked, getSession never throws",
    async () => {
      await fuzz(allowListed)
    },
    TEST_TIMEOUT_MS,
  )

  it("fuzz: no crash and no unhandled rejection during the runs; the secrets checked include issued tokens and PKCE verifiers", () => {
    expect(crashes).toEqual([])
    expect(verifiersSeen).toBeGreaterThan(1)
    expect([...secrets].filter((s) => s.endsWith(".")).length).toBeGreaterThanOrEqual(2)
  })
})
