/**
 * The demo's Express app (not listening): its providers (credentials with a TOTP user, the Demo IdP,
 * email links and one-time codes through the demo's mailbox, passkeys, real providers from `AUTH_<ID>_*`), its config (memory
 * adapter, database sessions, the inspector in development) and its pages (home, protected, account,
 * mailbox). demo/server.ts starts it with its IdP and mailbox.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import express, { type Express } from "express"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { createInspector } from "../src/inspect/index.js"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "../src/integration/express.js"
import Credentials from "../src/providers/credentials.js"
import EmailCode from "../src/providers/email-code/index.js"
import Nodemailer from "../src/providers/nodemailer.js"
import Passkey from "../src/providers/passkey.js"
import type { Provider, Session } from "../src/types.js"
import { accountPage } from "./account.js"
import { DEMO_IDP_ACCOUNTS } from "./idp.js"
import type { Mailbox } from "./mailbox.js"
import { escapeHtml, mailboxPage, page, requireUser } from "./pages.js"
import { type DemoEnv, type DemoSignInOption, PRESETS, providersFromEnv } from "./providers.js"
import { DEMO_TOTP_USER, type DemoTotp, createDemoTotp } from "./totp.js"

/** The credentials user who signs in with a password only. */
export const DEMO_USER = { id: "demo-user", name: "Demo User", email: "demo@example.test" } as const
/** The password of both credentials users. */
export const DEMO_PASSWORD = "authchart-demo"
/** The sender of the demo's sign-in emails. */
export const DEMO_MAIL_FROM = "authchart demo <demo@localhost>"

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

/** What `createDemoApp` builds the app with (all optional). */
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

/** The demo app and what it was built with, for `start` and the tests. */
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
    // one-time codes through the same mailbox: a flow written with the public kit (authchart/flow)
    providers.push(
      EmailCode({
        name: "Code by email",
        server: { host: "127.0.0.1", port: mailbox.port, secure: false, ignoreTLS: true },
        from: DEMO_MAIL_FROM,
      }),
    )
    signInOptions.push({ id: "email-code", name: "Code by email", hint: "any address; type the 6-digit code from the demo's mailbox" })
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
    logout: { keepIdToken: true, offerOnSignOutPage: true },
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
