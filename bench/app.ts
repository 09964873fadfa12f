/**
 * Bench child process: `tsx bench/app.ts <authchart|authjs> <port>`.
 *
 * The same Express 5 app for both libraries: `/auth` mounted with `ExpressAuth(config)`, one
 * credentials provider, `GET /protected` reading the session with `getSession(req, config)`, plus
 * `GET /__bare` (a plain JSON route, the Express baseline), `/__answer` (a middleware mounted on a prefix
 * that answers at once: the least a mounted library can cost) and `GET /__rss` (this process' RSS).
 * Listens on 127.0.0.1 only and prints "ready" once listening.
 *
 * With BENCH_IDP_ISSUER (+ BENCH_IDP_CLIENT_ID, BENCH_IDP_CLIENT_SECRET) set, both apps also get the
 * same plain OIDC provider object `{ id: "bench-idp", type: "oidc", issuer, clientId, clientSecret }`
 * (library defaults otherwise: Auth.js checks ["pkce"], authchart PKCE + state + nonce).
 */
import { monitorEventLoopDelay } from "node:perf_hooks"
import express from "express"
import type { Request, Response } from "express"

import { BENCH_SECRET, BENCH_USER, CSRF_COOKIE, IDP_ENV, IDP_PROVIDER_ID, PASSKEY_PROVIDER_ID, SESSION_COOKIE } from "./shared.js"

type Side = "authchart" | "authjs"

interface Lib {
  // Both libraries take the Auth.js config shape; the types differ only nominally.
  ExpressAuth: (config: any) => express.RequestHandler
  getSession: (req: Request, config: any) => Promise<unknown>
  Credentials: (options: any) => unknown
}

/**
 * Where authchart is loaded from: the build in `dist/` (what an app installs: `npm run bench` and its
 * sub-benches build it first), or with BENCH_FROM=src the TypeScript sources through tsx, whose transform
 * adds work of its own (every named arrow function is wrapped to keep its name).
 */
const AUTHCHART = process.env.BENCH_FROM === "src" ? "../src" : "../dist"

/** An authchart module, from {@link AUTHCHART}. */
function authchart(path: string): Promise<any> {
  return import(`${AUTHCHART}/${path}`)
}

async function load(side: Side): Promise<Lib> {
  if (side === "authchart") {
    const [{ ExpressAuth, getSession }, { default: Credentials }] = await Promise.all([
      authchart("integration/express.js"),
      authchart("providers/credentials.js"),
    ])
    return { ExpressAuth: ExpressAuth as Lib["ExpressAuth"], getSession, Credentials }
  }
  const [{ ExpressAuth, getSession }, { default: Credentials }] = await Promise.all([
    import("@auth/express"),
    import("@auth/express/providers/credentials"),
  ])
  return { ExpressAuth: ExpressAuth as Lib["ExpressAuth"], getSession, Credentials }
}

/**
 * BENCH_STEPS=1 (authchart only): a memory adapter (JWT sessions kept), an email provider whose links
 * are kept in memory for the runner, a credentials provider `totp` whose users `totp-*` answer a TOTP
 * step (secret from bench/totp-secret.ts) on its own flow, and a passkey provider (WebAuthn enabled).
 */
async function stepsConfig(): Promise<{
  config: { adapter: unknown; [key: string]: unknown }
  providers: unknown[]
  mail: Map<string, string>
}> {
  const [
    { MemoryAdapter },
    { default: Credentials },
    { credentialsFlow, extendFlow },
    { totpStep },
    { default: Passkey },
    { stepsProviders },
  ] = await Promise.all([
    authchart("adapters/memory.js"),
    authchart("providers/credentials.js"),
    authchart("index.js"),
    authchart("steps/totp.js"),
    authchart("providers/passkey.js"),
    // not in ./shared.js: the @auth/express app must load nothing of authchart's
    import("./steps-providers.js"),
  ])
  const mail = new Map<string, string>()
  const { flows, providers } = stepsProviders({ Credentials, credentialsFlow, extendFlow, totpStep }, mail)
  return {
    config: { adapter: MemoryAdapter(), session: { strategy: "jwt" }, flows, experimental: { enableWebAuthn: true } },
    mail,
    providers: [...providers, Passkey({ id: PASSKEY_PROVIDER_ID })],
  }
}

/**
 * `POST /__integration` (steps bench): the Express integration's own part of a credentials sign-in and
 * nothing else. It reads the form, makes the request object the runtime reads (its URL and cookies
 * included), and writes a sign-in's answer: a redirect with a session cookie of a real one's size and the
 * callback-URL cookie, serialised and written as the middleware writes every answer. The step between
 * this and the credentials POST is `handleRequest` itself.
 */
async function integrationRoute(): Promise<express.RequestHandler> {
  const [{ readBody }, { ExpressIncoming, requestUrl }, { write }, { finish }, { resolvedFor }] = await Promise.all([
    authchart("integration/body.js"),
    authchart("integration/express-request.js"),
    authchart("integration/express-write.js"),
    authchart("runtime/front/auth.js"),
    authchart("runtime/front/resolve.js"),
  ])
  const resolved = resolvedFor({ secret: BENCH_SECRET, trustHost: true, providers: [] })
  const options = { path: "/", httpOnly: true, sameSite: "lax" }
  // a session token as long as a bench sign-in's (478 characters: the JWE of BENCH_USER with iat, exp and jti)
  const token = "x".repeat(Number(process.env.BENCH_INTEGRATION_TOKEN_CHARS ?? 478))
  return async (req, res, next) => {
    try {
      const url = requestUrl(req, resolved)
      const body = await readBody(req)
      const incoming = new ExpressIncoming(req, req.method, url, body)
      if (typeof incoming.body?.csrfToken !== "string" || !incoming.cookies[CSRF_COOKIE]) {
        res.status(400).end()
        return
      }
      const expires = new Date(Date.now() + 30 * 86_400_000)
      const response = {
        redirect: String(incoming.body.callbackUrl),
        cookies: [
          { name: SESSION_COOKIE, value: token, options: { ...options, expires } },
          { name: "authjs.callback-url", value: String(incoming.body.callbackUrl), options },
        ],
      }
      write(res, finish({ response }, incoming))
    } catch (err) {
      next(err)
    }
  }
}

async function main(): Promise<void> {
  const [side, portArg] = process.argv.slice(2)
  if (side !== "authchart" && side !== "authjs") throw new Error(`usage: app.ts <authchart|authjs> <port>, got ${side}`)
  const port = Number(portArg)
  if (!Number.isInteger(port) || port <= 0) throw new Error(`bad port ${portArg}`)

  const lib = await load(side)
  const issuer = process.env[IDP_ENV.issuer]
  const idp = issuer
    ? [
        {
          id: IDP_PROVIDER_ID,
          name: "Bench IdP",
          type: "oidc" as const,
          issuer,
          clientId: process.env[IDP_ENV.clientId],
          clientSecret: process.env[IDP_ENV.clientSecret],
        },
      ]
    : []
  const unlimited = { max: 1e9 }
  const config = {
    secret: BENCH_SECRET,
    trustHost: true,
    // authchart's limits are on in production: counted here (their cost is measured) with maxima one
    // load generator on loopback never reaches. Auth.js ignores the key.
    // BENCH_RATE_LIMIT=0 turns them off, to measure what they cost.
    rateLimit:
      process.env.BENCH_RATE_LIMIT === "0"
        ? (false as const)
        : {
            rules: {
              client: unlimited,
              passwordAccount: unlimited,
              passwordClient: unlimited,
              passwordAccounts: unlimited,
              oauthClient: unlimited,
              emailClient: unlimited,
              emailAddress: unlimited,
              webauthnClient: unlimited,
            },
          },
    providers: [
      lib.Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: async (credentials: Record<string, unknown>) =>
          credentials.username === "bench" && credentials.password === "bench" ? { ...BENCH_USER } : null,
      }),
      ...idp,
    ],
  }

  const steps = side === "authchart" && process.env.BENCH_STEPS === "1" ? await stepsConfig() : undefined
  if (steps) {
    Object.assign(config, steps.config)
    config.providers.push(...steps.providers)
  }

  const app = express()
  app.disable("x-powered-by")
  // This process' CPU time (µs, user + system), RSS and heap: the runner reads it before and after a load.
  app.get("/__cpu", (_req: Request, res: Response) => {
    const { user, system } = process.cpuUsage()
    const { rss, heapUsed } = process.memoryUsage()
    res.json({ user, system, rss, heapUsed })
  })
  // After a full garbage collection when the process runs with --expose-gc (the soak starts it so): the
  // heap that survives, the honest figure for growth. `gc` says whether one ran.
  app.get("/__gc", (_req: Request, res: Response) => {
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    res.json({ gc: gc !== undefined, ...process.memoryUsage() })
  })
  if (steps) {
    app.post("/__integration", await integrationRoute())
    // what the TOTP code and passkey sign-in steps cannot skip, beside them (bench/essential.ts)
    const essential = await import("./essential.js")
    app.post("/__essential/totp-code", await essential.totpCodeRoute(authchart))
    app.post("/__essential/passkey-authenticate", await essential.passkeyAuthenticateRoute(authchart, steps.config.adapter))
    // the last magic link sent to an address (the steps bench follows it)
    app.get("/__mail", (req: Request, res: Response) => {
      const url = steps.mail.get(String(req.query.email))
      res.status(url ? 200 : 404).json({ url: url ?? null })
    })
  }
  app.get("/__bare", (_req: Request, res: Response) => {
    res.json({ ok: true })
  })
  // Event-loop delay (ms), reset on each read: shows whether requests wait behind blocking work.
  const eld = monitorEventLoopDelay({ resolution: 10 })
  eld.enable()
  app.get("/__rss", (_req: Request, res: Response) => {
    const loop = { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 }
    eld.reset()
    res.json({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed, loop })
  })
  // The least any library mounted like the one under test can cost: a middleware on a prefix that
  // answers at once with Node's own writeHead/end. Above it is the library's own work; the session
  // goal's ratio can reach at most the other side's read divided by this.
  app.use("/__answer", (_req: Request, res: Response) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end('{"ok":true}')
  })
  app.use("/auth", lib.ExpressAuth(config))
  app.get("/protected", async (req: Request, res: Response, next) => {
    try {
      const session = await lib.getSession(req, config)
      if (!session) {
        res.status(401).json({ error: "unauthenticated" })
        return
      }
      res.json(session)
    } catch (err) {
      next(err)
    }
  })

  const server = app.listen(port, "127.0.0.1", () => {
    process.stdout.write("ready\n")
  })
  server.on("error", (err) => {
    console.error(err)
    process.exit(1)
  })
  const stop = () => server.close(() => process.exit(0))
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  // Die with the parent: bench/run.ts keeps our stdin open.
  process.stdin.on("end", () => process.exit(0))
  process.stdin.resume()
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
