/**
 * An Express app whose sign-in page shows every kind of provider at once: credentials (with a TOTP step
 * for one user), email (real SMTP capture), passkeys and an OpenID provider (the real oidc-provider on
 * another origin, its users also asked for TOTP), plus the development inspector. Served on
 * `http://localhost:<port>` (a passkey's RP ID must be a domain name), for tests of the built-in pages
 * in Chromium and over HTTP.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import express from "express"
import type { Page } from "playwright-core"
import { type CompleteAdapter, MemoryAdapter } from "../../src/adapters/memory.js"
import { type AuthConfig, credentialsFlow, extendFlow, oauthFlow } from "../../src/index.js"
import { type InspectorHandle, createInspector } from "../../src/inspect/index.js"
import { ExpressAuth, type ExpressAuthConfig } from "../../src/integration/express.js"
import Credentials from "../../src/providers/credentials.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import Passkey from "../../src/providers/passkey.js"
import { totpStep } from "../../src/steps/totp.js"
import { SECRET, captureLogger } from "../helpers.js"
import { type OidcServer, startOidcProvider } from "./oidc-provider.js"
import { freePort } from "./redis-server.js"
import { type SmtpCapture, startSmtp } from "./smtp.js"

export const PASSWORD = "correct horse battery staple"
/** Sign in with a password, then a TOTP code (one user per test: a TOTP code is used once per user). */
export const TOTP_USERS = ["ada@example.test", "cy@example.test", "dee@example.test", "eve@example.test"] as const
export const ADA = TOTP_USERS[0]
/** Signs in with a password only. */
export const BOB = "bob@example.test"
/** The TOTP secret of the TOTP users and of the IdP's alice@example.test. */
export const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
export const BRAND_COLOR = "#0a7d38"

const WITH_TOTP = new Set<string>([...TOTP_USERS, "alice@example.test"])

export interface PagesApp {
  /** `http://localhost:<port>` */
  readonly base: string
  readonly idp: OidcServer
  readonly smtp: SmtpCapture
  readonly inspector: InspectorHandle
  readonly adapter: CompleteAdapter
  readonly log: ReturnType<typeof captureLogger>
  readonly config: ExpressAuthConfig
  stop(): Promise<void>
}

/** Starts the app, its OpenID provider and its SMTP capture; `stop()` ends all three. */
export async function startPagesApp(): Promise<PagesApp> {
  const log = captureLogger()
  // the redirect URI registered at the IdP needs the port before the app listens
  const [smtp, port] = await Promise.all([startSmtp(), freePort()])
  const base = `http://localhost:${port}`
  const idp = await startOidcProvider({
    clients: [{ client_id: "pages", client_secret: "pages-secret", redirect_uris: [`${base}/auth/callback/idp`] }],
  })
  const inspector = createInspector()
  const adapter = MemoryAdapter()
  const totp = totpStep({ secretFor: (user) => (WITH_TOTP.has(user.email ?? "") ? TOTP_SECRET : null) })
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: log.logger,
    theme: { brandColor: BRAND_COLOR },
    experimental: { enableWebAuthn: true },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        authorize: (input) => {
          const email = String((input as Record<string, unknown>).email ?? "")
          const known = email === BOB || WITH_TOTP.has(email)
          return known && (input as Record<string, unknown>).password === PASSWORD ? { id: `u-${email}`, email } : null
        },
      }),
      Nodemailer({ server: smtp.url, from: "pages@example.test" }),
      Passkey({}),
      { id: "idp", name: "IdP", type: "oidc", issuer: idp.issuer, clientId: "pages", clientSecret: "pages-secret" },
    ] as AuthConfig["providers"],
    flows: [extendFlow(credentialsFlow, [totp]), extendFlow(oauthFlow, [totp])],
    inspect: inspector.inspect,
    routes: inspector.routes,
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.get("/", (_req, res) => void res.send("<!DOCTYPE html><title>home</title><p>home</p>"))
  const server: Server = app.listen(port, "127.0.0.1")
  await once(server, "listening")
  return {
    base,
    idp,
    smtp,
    inspector,
    adapter,
    log,
    config,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await Promise.all([idp.stop(), smtp.stop()])
    },
  }
}

/** In a browser tab: the built-in sign-in page, the credentials form filled for `email` and sent. */
export async function submitCredentials(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/auth/signin`)
  await page.fill("#input-email-for-credentials-provider", email)
  await page.fill("#input-password-for-credentials-provider", PASSWORD)
  await page.click("text=Sign in with Credentials")
}

/** The email of the session the app sees for this tab's cookies, if any. */
export async function sessionEmail(page: Page, base: string): Promise<string | undefined> {
  const session = (await (await page.context().request.get(`${base}/auth/session`)).json()) as { user?: { email?: string } } | null
  return session?.user?.email
}
