/**
 * authchart demo: an Express 5 app with credentials sign-in, a session on every page and a protected page.
 *
 *   npm run demo              # http://localhost:3000
 *   PORT=4000 npm run demo    # another port
 *   AUTH_SECRET=… npm run demo  # keep sessions across restarts (otherwise a random secret per start)
 *
 * tests/demo.test.ts walks this app like a person, so it cannot rot.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import express, { type Express, type NextFunction, type Request, type Response } from "express"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import type { Session } from "../src/types.js"

export const DEMO_USER = { id: "demo-user", name: "Demo User", email: "demo@example.test" } as const
export const DEMO_PASSWORD = "authchart-demo"

const digest = (value: string): Buffer => createHash("sha256").update(value).digest()

/** Compares in constant time, as a real password check would (after hashing, with a real KDF). */
function matches(given: unknown, expected: string): boolean {
  return typeof given === "string" && timingSafeEqual(digest(given), digest(expected))
}

export interface DemoOptions {
  /** Default: `AUTH_SECRET`, else a random secret (sessions end when the process does). */
  secret?: string
  /** Default: authchart's console logger. */
  logger?: ExpressAuthConfig["logger"]
}

export interface DemoApp {
  app: Express
  config: ExpressAuthConfig
  /** True when no secret was given and none was in `AUTH_SECRET`. */
  secretGenerated: boolean
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function page(title: string, session: Session | null, body: string): string {
  const who = session?.user
    ? `Signed in as <strong>${escapeHtml(session.user.email ?? session.user.name ?? "someone")}</strong>`
    : "Not signed in"
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · authchart demo</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
nav a{margin-right:1rem}pre{background:#f4f4f5;padding:1rem;overflow:auto}</style></head>
<body><nav><a href="/">Home</a><a href="/auth/signin">Sign in</a><a href="/protected">Protected page</a><a href="/auth/signout">Sign out</a></nav>
<p>${who}</p>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`
}

/** Lets a request through when it has a signed-in user, else sends it to sign in and back here. */
function requireUser(req: Request, res: Response, next: NextFunction): void {
  const session = res.locals.session as Session | null
  if (session?.user) return next()
  res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`)
}

/** The demo app (not listening). */
export function createDemoApp(options: DemoOptions = {}): DemoApp {
  const given = options.secret ?? process.env.AUTH_SECRET
  const secret = given || randomBytes(32).toString("base64url")

  const config: ExpressAuthConfig = {
    secret,
    // the demo runs on localhost: trust the Host header even with NODE_ENV=production
    trustHost: true,
    ...(options.logger ? { logger: options.logger } : {}),
    providers: [
      Credentials({
        credentials: {
          email: { label: "Email", type: "email", placeholder: DEMO_USER.email, required: true },
          password: { label: "Password", type: "password", required: true },
        },
        authorize: ({ email, password }) =>
          matches(email, DEMO_USER.email) && matches(password, DEMO_PASSWORD) ? { ...DEMO_USER } : null,
      }),
    ],
  }

  const app = express()
  app.disable("x-powered-by")
  app.use("/auth", ExpressAuth(config))

  // every page after this knows the session; a refreshed session cookie goes out with the page
  app.use(async (req, res, next) => {
    res.locals.session = await getSession(req, config, res)
    next()
  })

  app.get("/", (_req, res) => {
    const session = res.locals.session as Session | null
    res.send(
      page(
        "Home",
        session,
        `<p>Sign in with <code>${escapeHtml(DEMO_USER.email)}</code> / <code>${escapeHtml(DEMO_PASSWORD)}</code>.</p>
<ul><li><a href="/auth/signin">Sign in</a></li><li><a href="/protected">Protected page</a></li><li><a href="/auth/signout">Sign out</a></li></ul>`,
      ),
    )
  })

  app.get("/protected", requireUser, (_req, res) => {
    const session = res.locals.session as Session
    res.send(
      page(
        "Protected page",
        session,
        `<p>Only signed-in users see this. Your session:</p>
<pre>${escapeHtml(JSON.stringify(session, null, 2))}</pre>
<p><a href="/auth/signout">Sign out</a></p>`,
      ),
    )
  })

  return { app, config, secretGenerated: !given }
}

/** Starts the demo on `port` (0: any free port) and prints how to sign in. */
export async function start(
  port: number,
  options: DemoOptions & { host?: string; log?: (line: string) => void } = {},
): Promise<{ server: Server; url: string; secretGenerated: boolean }> {
  const log = options.log ?? console.log
  const { app, secretGenerated } = createDemoApp(options)
  const host = options.host ?? "localhost"
  const server = app.listen(port, host)
  await once(server, "listening")
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`
  log(`authchart demo on ${url}`)
  log(`  sign in as ${DEMO_USER.email} / ${DEMO_PASSWORD}`)
  if (secretGenerated) log("  note: no AUTH_SECRET set, using a random secret: sessions end when the server stops")
  return { server, url, secretGenerated }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (isMain) {
  const port = Number(process.env.PORT ?? 3000)
  start(Number.isInteger(port) && port >= 0 ? port : 3000).catch((err: unknown) => {
    console.error(err)
    process.exitCode = 1
  })
}
