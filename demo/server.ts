/**
 * authchart demo: an Express 5 app with credentials sign-in, "Sign in with Demo IdP" against a local
 * OpenID provider started in-process (works offline), sign-in by email through an in-process SMTP
 * server whose messages show on `/dev/mailbox` and the console (works offline too), one-time codes by
 * email through the same mailbox, passkeys (the
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
 * (the start lines print the three ports and these variables)
 *   NODE_ENV=production npm run demo # no /dev/mailbox page (the links are still printed), no inspector
 *   AUTH_SECRET=… npm run demo    # keep sessions across restarts (otherwise a random secret per start)
 *   AUTH_GITHUB_ID=… AUTH_GITHUB_SECRET=… npm run demo  # also "Sign in with GitHub"
 *
 * Real providers need their callback URL registered with them: `http://localhost:<PORT>/auth/callback/<id>`.
 * tests/demo.test.ts walks this app like a person, so it cannot rot.
 */
import { once } from "node:events"
import { createServer, type RequestListener, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { DEMO_PASSWORD, DEMO_USER, type DemoOptions, createDemoApp } from "./app.js"
import { DEMO_IDP_ACCOUNTS, type DemoIdp, startDemoIdp } from "./idp.js"
import { type Mailbox, startMailbox } from "./mailbox.js"
import { type DemoSignInOption, KNOWN_PRESETS, PRESETS } from "./providers.js"
import { DEMO_TOTP_USER, type DemoTotp } from "./totp.js"

export { DEMO_MAIL_FROM, DEMO_PASSWORD, DEMO_USER, createDemoApp, type DemoApp, type DemoIdpClient, type DemoOptions } from "./app.js"
export { DEMO_IDP_ACCOUNTS, DEMO_TOTP_USER, KNOWN_PRESETS }
export type { DemoEnv, DemoSignInOption } from "./providers.js"

/** What `start` runs the demo with: the app's options, where to listen, and where to log. */
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

/** A started demo: its server and URL, its IdP and mailbox, and how to stop it all. */
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
    `  or "Sign in with Code by email" with any address: the 6-digit code is printed here${
      env.NODE_ENV === "production" ? "" : ` and shown on ${url}/dev/mailbox`
    }; type it on the next page`,
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
  const idpPort = new URL(idp.issuer).port
  log(
    `  ports: the app ${actualPort} (PORT), the Demo IdP ${idpPort} (DEMO_IDP_PORT), SMTP ${mailbox.port} (DEMO_SMTP_PORT); to move them: PORT=4000 DEMO_IDP_PORT=4001 DEMO_SMTP_PORT=2525 npm run demo`,
  )
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
