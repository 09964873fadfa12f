/**
 * authchart demo: an Express 5 app with credentials sign-in, "Sign in with Demo IdP" against a local
 * OpenID provider started in-process (works offline), sign-in by email through an in-process SMTP
 * server whose messages show on `/dev/mailbox` and the console (works offline too), passkeys (the
 * browser's own passkey manager, or a security key), any real provider configured through
 * `AUTH_<ID>_*` variables, a session on every page and a protected page. A second user signs in in two
 * steps (password, then a TOTP code; the account page shows the enrolment QR code), and in development
 * the inspector (`/auth/__inspect`) draws every flow and follows each sign-in live.
 * Users and sessions live in a `MemoryAdapter` (lost on exit): database sessions, so the account page
 * (demo/account.ts) lists every browser you are signed in with and can end each one.
 *
 *   npm run demo                  # http://localhost:3000, the Demo IdP and the mailbox on 127.0.0.1:<any port>
 *   PORT=4000 npm run demo        # another port
 *   DEMO_IDP_PORT=4001 npm run demo  # a fixed port for the Demo IdP
 *   DEMO_SMTP_PORT=2525 npm run demo # a fixed port for the SMTP server
 *   NODE_ENV=production npm run demo # no /dev/mailbox page (the links are still printed), no inspector
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
import express, { type Express } from "express"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { createInspector } from "../src/inspect/index.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import Nodemailer from "../src/providers/nodemailer.js"
import Passkey from "../src/providers/passkey.js"
import type { Provider, Session } from "../src/types.js"
import { accountPage } from "./account.js"
import { DEMO_IDP_ACCOUNTS, type DemoIdp, startDemoIdp } from "./idp.js"
import { type Mailbox, startMailbox } from "./mailbox.js"
import { escapeHtml, mailboxPage, page, requireUser } from "./pages.js"
import { type DemoEnv, type DemoSignInOption, KNOWN_PRESETS, PRESETS, providersFromEnv } from "./providers.js"
import { DEMO_TOTP_USER, type DemoTotp, createDemoTotp } from "./totp.js"

export const DEMO_USER = { id: "demo-user", name: "Demo User", email: "demo@example.test" } as const
export const DEMO_PASSWORD = "authchart-demo"
export const DEMO_MAIL_FROM = "authchart demo <demo@localhost>"
export { DEMO_IDP_ACCOUNTS, DEMO_TOTP_USER, KNOWN_PRESETS }
export type { DemoEnv, DemoSignInOption }

const digest = (value: string): Buffer => createHash("sha256").update(value).digest()

/** Compares in constant time, as a real password check would (after hashing, with a real KDF). */
function matches(given: unknown, expected: string): boolean {
  return typeof given === "string" && timingSafeEqual(digest(given), digest(expected))
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
  /** The two-step (TOTP) user's secret and flow. */
  totp: DemoTotp
  /** Where the inspector is (development only), else undefined. */
  inspectorUrl: string | undefined
}

/** The demo app (not listening). */
export function createDemoApp(options: DemoOptions = {}): DemoApp {
  const env = options.env ?? process.env
  const given = options.secret ?? env.AUTH_SECRET
  const secret = given || randomBytes(32).toString("base64url")

  const signInOptions: DemoSignInOption[] = [{ id: "credentials", name: "Credentials", hint: `${DEMO_USER.email} / ${DEMO_PASSWORD}` }]
  const providers: Provider[] = [
    Credentials({
      credentials: {
        email: { label: "Email", type: "email", placeholder: DEMO_USER.email, required: true },
        password: { label: "Password", type: "password", required: true },
      },
      authorize: ({ email, password }) => {
        if (!matches(password, DEMO_PASSWORD)) return null
        if (matches(email, DEMO_USER.email)) return { ...DEMO_USER }
        return matches(email, DEMO_TOTP_USER.email) ? { ...DEMO_TOTP_USER } : null
      },
    }),
  ]
  const totp = createDemoTotp()
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
  // the mailbox page shows live sign-in links, the inspector every flow: development only
  const development = env.NODE_ENV !== "production"
  const devMailbox = development ? mailbox : undefined
  const inspector = development ? createInspector() : undefined

  const config: ExpressAuthConfig = {
    secret,
    // the demo runs on localhost: trust the Host header even with NODE_ENV=production
    trustHost: true,
    ...(options.logger ? { logger: options.logger } : {}),
    // users, accounts, sessions and email tokens in memory; credentials users get database sessions too
    adapter: MemoryAdapter(),
    session: { strategy: "database", allowCredentials: true },
    // the credentials users have a password, so they may unlink every provider
    accounts: { hasOtherSignIn: (user) => user.id === DEMO_USER.id || user.id === DEMO_TOTP_USER.id },
    // the sign-out page offers "Sign out of Demo IdP too" (the ID token is kept in the session for it)
    logout: { keepIdToken: true },
    providers,
    // credentials sign-in asks the TOTP user for a code after the password
    flows: [totp.flow],
    ...(inspector ? { inspect: inspector.inspect, routes: inspector.routes } : {}),
    ...(options.passkeys ? { experimental: { enableWebAuthn: true } } : {}),
  }
  const inspectorUrl = inspector ? "/auth/__inspect" : undefined

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
    const choices = signInOptions.map((o) => `<li><strong>${escapeHtml(o.name)}</strong>: ${escapeHtml(o.hint)}</li>`).join("\n")
    res.send(
      page(
        "Home",
        session,
        `<p><a href="/auth/signin">Sign in</a> with any of:</p>
<ul class="sign-in-options">
${choices}
</ul>
<p class="totp-user">Two-step sign-in: <strong>${DEMO_TOTP_USER.email}</strong> / ${DEMO_PASSWORD} with Credentials, then the
6-digit code of an authenticator app set up with the key <code>${escapeHtml(totp.secret)}</code> (its QR code is on the
<a href="/account">account page</a> once signed in).</p>
<ul><li><a href="/auth/signin">Sign in</a></li><li><a href="/protected">Protected page</a></li><li><a href="/account">Account</a></li><li><a href="/auth/signout">Sign out</a></li>${
          devMailbox ? `<li><a href="/dev/mailbox">Mailbox</a> (development only: the sign-in emails)</li>` : ""
        }${
          inspectorUrl
            ? `<li><a href="${inspectorUrl}">Inspector</a> (development only: every flow's diagram and its live timeline)</li>`
            : ""
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

  const linkable = signInOptions.filter((o) => o.id === "demo-idp" || Object.hasOwn(PRESETS, o.id)).map(({ id, name }) => ({ id, name }))
  app.get("/account", requireUser, accountPage({ config, totp, linkable }))

  if (devMailbox) {
    app.get("/dev/mailbox", (_req, res) => {
      res.set("cache-control", "no-store")
      res.send(page("Mailbox", res.locals.session as Session | null, mailboxPage(devMailbox.messages())))
    })
  }

  return { app, config, secretGenerated: !given, signInOptions, skipped: real.skipped, totp, inspectorUrl }
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
  /** The two-step (TOTP) user's secret and flow. */
  totp: DemoTotp
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
      postLogoutRedirectUris: [...origins].map((origin) => `${origin}/auth/signout-callback`),
      backchannelLogoutUri: `${url}/auth/backchannel-logout/demo-idp`,
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
  log(
    `  or, with two-step sign-in, as ${DEMO_TOTP_USER.email} / ${DEMO_PASSWORD}, then the code of an authenticator app with the key ${demo.totp.secret} (QR code on ${url}/account)`,
  )
  log(`  or "Sign in with Demo IdP" (${idp.issuer}): pick ${DEMO_IDP_ACCOUNTS.map((a) => a.email).join(" or ")}, no password`)
  log(
    `  or "Sign in with Email" with any address: the link is printed here${
      env.NODE_ENV === "production" ? "" : ` and shown on ${url}/dev/mailbox`
    } (SMTP on ${mailbox.url})`,
  )
  log(
    `  or "Register with Passkey" with any address, then "Sign in with Passkey" (on http://localhost:${actualPort}: passkeys need a domain name, not an IP address)`,
  )
  log(`  providers: ${demo.signInOptions.map((o) => o.name).join(", ")}`)
  const real = demo.signInOptions.filter((o) => Object.hasOwn(PRESETS, o.id))
  if (real.length === 0) log(`  add a real one with AUTH_<ID>_ID and AUTH_<ID>_SECRET (ids: ${KNOWN_PRESETS.join(", ")})`)
  for (const option of real) log(`  ${option.name}: register ${url}/auth/callback/${option.id} as its callback URL`)
  for (const reason of demo.skipped) log(`  skipped ${reason}`)
  if (demo.inspectorUrl) log(`  inspector (development only): ${url}${demo.inspectorUrl}`)
  if (demo.secretGenerated) log("  note: no AUTH_SECRET set, using a random secret: sessions end when the server stops")

  let stopping: Promise<void> | undefined
  const stop = () => (stopping ??= Promise.all([closeServer(), idp.stop(), mailbox.stop()]).then(() => undefined))
  return { server, url, secretGenerated: demo.secretGenerated, idp, mailbox, signInOptions: demo.signInOptions, totp: demo.totp, stop }
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
