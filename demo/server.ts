/**
 * authchart demo: an Express 5 app with credentials sign-in, "Sign in with Demo IdP" against a local
 * OpenID provider started in-process (works offline), sign-in by email through an in-process SMTP
 * server whose messages show on `/dev/mailbox` and the console (works offline too), passkeys (the
 * browser's own passkey manager, or a security key), any real provider configured through
 * `AUTH_<ID>_*` variables, a session on every page and a protected page.
 * Users live in a `MemoryAdapter` (lost on exit); sessions are JWTs, as credentials sign-in needs.
 *
 *   npm run demo                  # http://localhost:3000, the Demo IdP and the mailbox on 127.0.0.1:<any port>
 *   PORT=4000 npm run demo        # another port
 *   DEMO_IDP_PORT=4001 npm run demo  # a fixed port for the Demo IdP
 *   DEMO_SMTP_PORT=2525 npm run demo # a fixed port for the SMTP server
 *   NODE_ENV=production npm run demo # no /dev/mailbox page (the links are still printed)
 *   AUTH_SECRET=… npm run demo    # keep sessions across restarts (otherwise a random secret per start)
 *   AUTH_GITHUB_ID=… AUTH_GITHUB_SECRET=… npm run demo  # also "Sign in with GitHub"
 *
 * Real providers need their callback URL registered with them: `http://localhost:<PORT>/auth/callback/<id>`.
 * tests/demo.test.ts walks this app like a person, so it cannot rot.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { once } from "node:events"
import { createServer, type RequestListener, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import express, { type Express, type NextFunction, type Request, type Response } from "express"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Apple from "../src/providers/apple.js"
import Auth0 from "../src/providers/auth0.js"
import Credentials from "../src/providers/credentials.js"
import Discord from "../src/providers/discord.js"
import Facebook from "../src/providers/facebook.js"
import GitHub from "../src/providers/github.js"
import GitLab from "../src/providers/gitlab.js"
import Google from "../src/providers/google.js"
import Keycloak from "../src/providers/keycloak.js"
import LinkedIn from "../src/providers/linkedin.js"
import MicrosoftEntraID from "../src/providers/microsoft-entra-id.js"
import Nodemailer from "../src/providers/nodemailer.js"
import type { OAuthUserConfig } from "../src/providers/oauth-types.js"
import Okta from "../src/providers/okta.js"
import Passkey from "../src/providers/passkey.js"
import Slack from "../src/providers/slack.js"
import Spotify from "../src/providers/spotify.js"
import Twitch from "../src/providers/twitch.js"
import Twitter from "../src/providers/twitter.js"
import type { Provider, Session } from "../src/types.js"
import { DEMO_IDP_ACCOUNTS, type DemoIdp, startDemoIdp } from "./idp.js"
import { type Mailbox, type MailboxMessage, startMailbox } from "./mailbox.js"

export const DEMO_USER = { id: "demo-user", name: "Demo User", email: "demo@example.test" } as const
export const DEMO_PASSWORD = "authchart-demo"
export const DEMO_MAIL_FROM = "authchart demo <demo@localhost>"
export { DEMO_IDP_ACCOUNTS }

/** Environment variables, as in `process.env`. */
export type DemoEnv = Readonly<Record<string, string | undefined>>

const digest = (value: string): Buffer => createHash("sha256").update(value).digest()

/** Compares in constant time, as a real password check would (after hashing, with a real KDF). */
function matches(given: unknown, expected: string): boolean {
  return typeof given === "string" && timingSafeEqual(digest(given), digest(expected))
}

/**
 * The real providers the demo knows: each is enabled when `AUTH_<ID>_ID` is set (id upper-cased, `-` → `_`),
 * with `AUTH_<ID>_SECRET` and, where the provider has no fixed issuer, `AUTH_<ID>_ISSUER`.
 */
type EnvCredentials = Pick<OAuthUserConfig, "clientId" | "clientSecret" | "issuer">
const PRESETS: Readonly<Record<string, { make: (options: EnvCredentials) => Provider; needsIssuer?: true }>> = {
  github: { make: GitHub },
  google: { make: Google },
  discord: { make: Discord },
  gitlab: { make: GitLab },
  auth0: { make: Auth0, needsIssuer: true },
  keycloak: { make: Keycloak, needsIssuer: true },
  okta: { make: Okta, needsIssuer: true },
  "microsoft-entra-id": { make: MicrosoftEntraID },
  facebook: { make: Facebook },
  twitter: { make: Twitter },
  linkedin: { make: LinkedIn },
  slack: { make: Slack },
  twitch: { make: Twitch },
  spotify: { make: Spotify },
  apple: { make: Apple },
}

export const KNOWN_PRESETS: readonly string[] = Object.freeze(Object.keys(PRESETS))

const envKey = (id: string): string => `AUTH_${id.toUpperCase().replace(/-/g, "_")}`

/** One sign-in option of the demo, as the home page and the start-up lines show it. */
export interface DemoSignInOption {
  id: string
  name: string
  /** How to use it, in a few words. */
  hint: string
}

/** The Demo IdP as the demo app sees it: where it is and the client registered for the demo. */
export interface DemoIdpClient {
  issuer: string
  clientId: string
  clientSecret: string
}

export interface DemoOptions {
  /** Default: `AUTH_SECRET`, else a random secret (sessions end when the process does). */
  secret?: string
  /** Default: authchart's console logger. */
  logger?: ExpressAuthConfig["logger"]
  /**
   * Where `AUTH_SECRET`, `AUTH_<ID>_*`, `NODE_ENV` (and, for `start`, `DEMO_IDP_PORT`, `DEMO_SMTP_PORT`)
   * are read. Default: `process.env`.
   */
  env?: DemoEnv
  /** "Sign in with Demo IdP" against this provider; `start` passes the IdP it started. None when absent. */
  demoIdp?: DemoIdpClient
  /**
   * "Sign in with Email" through this SMTP server, its messages on `/dev/mailbox` (unless
   * `NODE_ENV=production`); `start` passes the mailbox it started. None when absent.
   */
  mailbox?: Pick<Mailbox, "port" | "messages">
  /**
   * "Sign in with Passkey" (WebAuthn, experimental): register a passkey with any email address, then sign
   * in with it or pick it in the email field's autofill. `start` turns it on. Off when absent.
   */
  passkeys?: boolean
}

export interface DemoApp {
  app: Express
  config: ExpressAuthConfig
  /** True when no secret was given and none was in `AUTH_SECRET`. */
  secretGenerated: boolean
  /** The sign-in options, in the order of the sign-in page. */
  signInOptions: DemoSignInOption[]
  /** Presets with `AUTH_<ID>_ID` set but left out, and why. */
  skipped: string[]
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function mailboxPage(messages: MailboxMessage[]): string {
  const items = messages.map((m) => {
    const link = m.link ? `<br><a href="${escapeHtml(m.link)}">${escapeHtml(m.link)}</a>` : ""
    const time = m.receivedAt.toISOString()
    return `<li><time datetime="${time}">${time.slice(0, 19).replace("T", " ")} UTC</time> to <strong>${escapeHtml(m.to.join(", "))}</strong>: ${escapeHtml(m.subject)}${link}</li>`
  })
  return `<p>Messages the demo's SMTP server received, newest first (the last 50, until the demo stops).
Nothing is delivered anywhere. This page exists only in development: with <code>NODE_ENV=production</code> it is not served.</p>
${items.length > 0 ? `<ol class="mailbox">\n${items.join("\n")}\n</ol>` : "<p>No messages yet: sign in with Email and the link shows up here.</p>"}`
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

/** The real providers enabled by `AUTH_<ID>_*` in `env`, with their credentials taken from `env` itself. */
function providersFromEnv(env: DemoEnv): { providers: Provider[]; options: DemoSignInOption[]; skipped: string[] } {
  const providers: Provider[] = []
  const options: DemoSignInOption[] = []
  const skipped: string[] = []
  for (const [id, preset] of Object.entries(PRESETS)) {
    const key = envKey(id)
    const clientId = env[`${key}_ID`]
    if (!clientId) continue
    const clientSecret = env[`${key}_SECRET`]
    const issuer = env[`${key}_ISSUER`]
    if (preset.needsIssuer && !issuer) {
      skipped.push(`${id}: ${key}_ID is set but ${key}_ISSUER is not`)
      continue
    }
    // passed explicitly (not left to the runtime's process.env lookup), so `env` is the one source
    const provider = preset.make({ clientId, ...(clientSecret ? { clientSecret } : {}), ...(issuer ? { issuer } : {}) })
    const name = typeof provider === "function" ? id : provider.name
    providers.push(provider)
    options.push({ id, name, hint: `a real account (${key}_ID)` })
  }
  return { providers, options, skipped }
}

/** The demo app (not listening). */
export function createDemoApp(options: DemoOptions = {}): DemoApp {
  const env = options.env ?? process.env
  const given = options.secret ?? env.AUTH_SECRET
  const secret = given || randomBytes(32).toString("base64url")

  const signInOptions: DemoSignInOption[] = [
    { id: "credentials", name: "Credentials", hint: `${DEMO_USER.email} / ${DEMO_PASSWORD}` },
  ]
  const providers: Provider[] = [
    Credentials({
      credentials: {
        email: { label: "Email", type: "email", placeholder: DEMO_USER.email, required: true },
        password: { label: "Password", type: "password", required: true },
      },
      authorize: ({ email, password }) =>
        matches(email, DEMO_USER.email) && matches(password, DEMO_PASSWORD) ? { ...DEMO_USER } : null,
    }),
  ]
  if (options.demoIdp) {
    const { issuer, clientId, clientSecret } = options.demoIdp
    providers.push({ id: "demo-idp", name: "Demo IdP", type: "oidc", issuer, clientId, clientSecret })
    signInOptions.push({
      id: "demo-idp",
      name: "Demo IdP",
      hint: `${DEMO_IDP_ACCOUNTS.map((a) => a.email).join(" or ")}, picked on the IdP's page (no password)`,
    })
  }
  const mailbox = options.mailbox
  if (mailbox) {
    providers.push(
      Nodemailer({
        name: "Email",
        server: { host: "127.0.0.1", port: mailbox.port, secure: false, ignoreTLS: true },
        from: DEMO_MAIL_FROM,
      }),
    )
    signInOptions.push({ id: "nodemailer", name: "Email", hint: "any address; the link arrives in the demo's mailbox" })
  }
  if (options.passkeys) {
    providers.push(Passkey())
    signInOptions.push({ id: "passkey", name: "Passkey", hint: "register one with any email address, then sign in with it" })
  }
  const real = providersFromEnv(env)
  providers.push(...real.providers)
  signInOptions.push(...real.options)
  // the mailbox page shows live sign-in links: development only
  const devMailbox = env.NODE_ENV === "production" ? undefined : mailbox

  const config: ExpressAuthConfig = {
    secret,
    // the demo runs on localhost: trust the Host header even with NODE_ENV=production
    trustHost: true,
    ...(options.logger ? { logger: options.logger } : {}),
    // users, accounts and email tokens in memory; sessions stay JWTs (credentials sign-in needs them)
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    providers,
    ...(options.passkeys ? { experimental: { enableWebAuthn: true } } : {}),
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
    const choices = signInOptions
      .map((o) => `<li><strong>${escapeHtml(o.name)}</strong>: ${escapeHtml(o.hint)}</li>`)
      .join("\n")
    res.send(
      page(
        "Home",
        session,
        `<p><a href="/auth/signin">Sign in</a> with any of:</p>
<ul class="sign-in-options">
${choices}
</ul>
<ul><li><a href="/auth/signin">Sign in</a></li><li><a href="/protected">Protected page</a></li><li><a href="/auth/signout">Sign out</a></li>${
          devMailbox ? `<li><a href="/dev/mailbox">Mailbox</a> (development only: the sign-in emails)</li>` : ""
        }</ul>`,
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

  if (devMailbox) {
    app.get("/dev/mailbox", (_req, res) => {
      res.set("cache-control", "no-store")
      res.send(page("Mailbox", res.locals.session as Session | null, mailboxPage(devMailbox.messages())))
    })
  }

  return { app, config, secretGenerated: !given, signInOptions, skipped: real.skipped }
}

export interface StartOptions extends Omit<DemoOptions, "demoIdp"> {
  /** Default `localhost`. */
  host?: string
  /** Default: `DEMO_IDP_PORT`, else any free port. */
  idpPort?: number
  /** Default: `DEMO_SMTP_PORT`, else any free port. */
  smtpPort?: number
  /** Start-up lines and each message the mailbox receives. Default: console.log. */
  log?: (line: string) => void
}

export interface RunningDemo {
  server: Server
  url: string
  secretGenerated: boolean
  idp: DemoIdp
  mailbox: Mailbox
  signInOptions: DemoSignInOption[]
  /** Stops the demo, its IdP and its mailbox (idempotent). */
  stop(): Promise<void>
}

function portFrom(value: string | undefined, fallback: number): number {
  const port = Number(value ?? fallback)
  return Number.isInteger(port) && port >= 0 && port < 65536 ? port : fallback
}

/**
 * Starts the demo on `port` (0: any free port) with its Demo IdP, and prints how to sign in. The demo
 * listens first: the IdP registers the demo's callback URL, which needs the demo's port.
 */
export async function start(port: number, options: StartOptions = {}): Promise<RunningDemo> {
  const log = options.log ?? console.log
  const env = options.env ?? process.env
  const host = options.host ?? "localhost"

  let handle: RequestListener = (_req, res) => {
    res.statusCode = 503
    res.end("starting")
  }
  const server = createServer((req, res) => handle(req, res))
  server.listen(port, host)
  await once(server, "listening")
  const actualPort = (server.address() as AddressInfo).port
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`
  const closeServer = async () => {
    if (!server.listening) return
    const closed = once(server, "close")
    server.close()
    server.closeAllConnections()
    await closed
  }

  // the callback URL as the browser will send it: the printed origin, and the other loopback spellings
  const origins = new Set([url, `http://localhost:${actualPort}`, `http://127.0.0.1:${actualPort}`])
  const [idpStarted, mailboxStarted] = await Promise.allSettled([
    startDemoIdp({
      redirectUris: [...origins].map((origin) => `${origin}/auth/callback/demo-idp`),
      port: options.idpPort ?? portFrom(env.DEMO_IDP_PORT, 0),
    }),
    startMailbox({ port: options.smtpPort ?? portFrom(env.DEMO_SMTP_PORT, 0), log }),
  ])
  if (idpStarted.status === "rejected" || mailboxStarted.status === "rejected") {
    await Promise.all([
      closeServer(),
      idpStarted.status === "fulfilled" ? idpStarted.value.stop() : undefined,
      mailboxStarted.status === "fulfilled" ? mailboxStarted.value.stop() : undefined,
    ])
    throw idpStarted.status === "rejected" ? idpStarted.reason : (mailboxStarted as PromiseRejectedResult).reason
  }
  const idp = idpStarted.value
  const mailbox = mailboxStarted.value

  const demo = createDemoApp({ ...options, env, demoIdp: idp, mailbox, passkeys: true })
  handle = demo.app

  log(`authchart demo on ${url}`)
  log(`  sign in as ${DEMO_USER.email} / ${DEMO_PASSWORD}`)
  log(`  or "Sign in with Demo IdP" (${idp.issuer}): pick ${DEMO_IDP_ACCOUNTS.map((a) => a.email).join(" or ")}, no password`)
  log(
    `  or "Sign in with Email" with any address: the link is printed here${
      env.NODE_ENV === "production" ? "" : ` and shown on ${url}/dev/mailbox`
    } (SMTP on ${mailbox.url})`,
  )
  log(`  or "Register with Passkey" with any address, then "Sign in with Passkey" (on http://localhost:${actualPort}: passkeys need a domain name, not an IP address)`)
  log(`  providers: ${demo.signInOptions.map((o) => o.name).join(", ")}`)
  const real = demo.signInOptions.filter((o) => Object.hasOwn(PRESETS, o.id))
  if (real.length === 0) log(`  add a real one with AUTH_<ID>_ID and AUTH_<ID>_SECRET (ids: ${KNOWN_PRESETS.join(", ")})`)
  for (const option of real) log(`  ${option.name}: register ${url}/auth/callback/${option.id} as its callback URL`)
  for (const reason of demo.skipped) log(`  skipped ${reason}`)
  if (demo.secretGenerated) log("  note: no AUTH_SECRET set, using a random secret: sessions end when the server stops")

  let stopping: Promise<void> | undefined
  const stop = () => (stopping ??= Promise.all([closeServer(), idp.stop(), mailbox.stop()]).then(() => undefined))
  return { server, url, secretGenerated: demo.secretGenerated, idp, mailbox, signInOptions: demo.signInOptions, stop }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (isMain) {
  start(portFrom(process.env.PORT, 3000)).then(
    (demo) => {
      const shutdown = (signal: NodeJS.Signals) => {
        console.log(`\n${signal}: stopping the demo, its IdP and its mailbox`)
        demo.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            console.error(err)
            process.exit(1)
          },
        )
      }
      process.once("SIGINT", shutdown)
      process.once("SIGTERM", shutdown)
    },
    (err: unknown) => {
      console.error(err)
      process.exitCode = 1
    },
  )
}
