/**
 * Logout at the provider, end to end over real HTTP: an Express app (authchart mounted at /auth) on a
 * loopback port, a real OpenID provider (oidc-provider) that knows the app's `post_logout_redirect_uri`
 * and `backchannel_logout_uri`, and a scripted browser holding sessions at both. Back-channel: the
 * person signs out at the provider, the provider posts a logout token (`sub` and `sid`) to the app, and
 * the app's session that provider session started is gone (JWT: refused by the revocation; database:
 * deleted), while the person's session from another provider session (another browser) stands. RP-initiated: the app's sign-out
 * takes the browser through the provider's logout and back to the callback URL.
 */
import type { RequestListener } from "node:http"
import express from "express"
import { afterEach, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { AuthConfig } from "../src/index.js"
import { ExpressAuth } from "../src/integration/express.js"
import { SECRET, captureLogger } from "./helpers.js"
import { HttpBrowser } from "./support/app-process.js"
import { servesApps } from "./support/express-apps.js"
import { type IdpSession, type OidcServer, startOidcProvider } from "./support/oidc-provider.js"

const CLIENT = { id: "logout-app", secret: "logout-app-secret-0123456789" } as const
const serve = servesApps()
let idp: OidcServer | undefined

afterEach(async () => {
  await idp?.stop()
  idp = undefined
})

/** The app on a port, then the provider that knows its URLs, then the app's config pointing at it. */
/** How the app keeps sessions: JWT, or database on the memory adapter, or on one with only Auth.js' methods. */
type Storage = "jwt" | "database" | "database, Auth.js adapter"

/** The memory adapter without its `deleteUserSessions`: what any Auth.js adapter offers. */
function authjsAdapter() {
  const { deleteUserSessions: _notInAuthjs, ...methods } = MemoryAdapter()
  return methods
}

async function appWithProvider(storage: Storage) {
  const strategy = storage === "jwt" ? "jwt" : "database"
  let handler: RequestListener = (_req, res) => res.writeHead(503).end()
  const app = await serve((req, res) => handler(req, res))
  const provider = await startOidcProvider({
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${app.base}/auth/callback/idp`],
        post_logout_redirect_uris: [`${app.base}/auth/signout-callback`],
        backchannel_logout_uri: `${app.base}/auth/backchannel-logout/idp`,
        // `sid` in ID and logout tokens: the provider logs out the sessions of one of its sessions
        backchannel_logout_session_required: true,
      },
    ],
  })
  idp = provider
  const log = captureLogger()
  // the ID token of every sign-in, in order
  const idTokens: string[] = []
  const adapter = storage === "jwt" ? undefined : storage === "database" ? MemoryAdapter() : authjsAdapter()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [{ id: "idp", name: "IdP", type: "oidc", issuer: provider.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret }],
    session: { strategy },
    logout: { keepIdToken: true },
    events: { signIn: ({ account }) => void (typeof account?.id_token === "string" && idTokens.push(account.id_token)) },
    ...(adapter ? { adapter } : {}),
  }
  const server = express()
  server.use("/auth", ExpressAuth(config))
  handler = server
  return { base: app.base, provider, adapter, log, idTokens }
}

/** Signs the browser in at the app through the provider; the provider keeps its own session in `session`. */
async function signIn(browser: HttpBrowser, provider: OidcServer, session: IdpSession): Promise<void> {
  const csrfToken = await browser.csrf()
  const start = await browser.send("/auth/signin/idp", { form: { csrfToken } })
  const answer = await provider.authorize(start.location as string, { session })
  if (answer.kind !== "redirect") throw new Error("expected a redirect back to the app")
  const back = await browser.send(answer.url)
  expect(back.res.status).toBe(302)
}

async function sessionEmail(browser: HttpBrowser): Promise<string | null> {
  const { text } = await browser.send("/auth/session")
  return (JSON.parse(text) as { user?: { email?: string } } | null)?.user?.email ?? null
}

describe.each([
  "jwt",
  "database",
  "database, Auth.js adapter",
] as const)("back-channel logout from a real provider (%s sessions)", (storage) => {
  it("the person signs out at the provider in one browser; that browser's app session is gone, the other's stands", async () => {
    const { base, provider, adapter, log } = await appWithProvider(storage)
    const browser = new HttpBrowser([base])
    const session = provider.session()
    await signIn(browser, provider, session)
    expect(await sessionEmail(browser)).toBe("alice@example.test")
    const token = browser.cookie("authjs.session-token") as string
    const laptop = new HttpBrowser([base])
    await signIn(laptop, provider, provider.session())

    const landed = await provider.endSession(session)
    expect(new URL(landed).pathname).toBe("/session/end/success")
    expect(provider.backchannel).toEqual({ delivered: 1, failed: [] })

    if (adapter) expect(await adapter.getSessionAndUser(token)).toBeNull()
    expect(await sessionEmail(browser)).toBeNull()
    expect(await sessionEmail(laptop)).toBe("alice@example.test")
    expect(log.errors).toEqual([])
  })
})

describe.each(["jwt", "database"] as const)("RP-initiated logout at a real provider (%s sessions)", (storage) => {
  it("the app's sign-out ends the provider's session too and lands on the callback URL", async () => {
    const { base, provider, log } = await appWithProvider(storage)
    const browser = new HttpBrowser([base])
    const session = provider.session()
    await signIn(browser, provider, session)

    const csrfToken = await browser.csrf()
    const out = await browser.send("/auth/signout", { form: { csrfToken, provider: "idp", callbackUrl: `${base}/goodbye` } })
    expect(out.res.status).toBe(303)
    expect(new URL(out.location as string).origin).toBe(provider.issuer)
    expect(browser.cookie("authjs.session-token")).toBeUndefined()

    const back = await browser.send(await provider.endSession(session, out.location as string))
    expect(back.location).toBe(`${base}/goodbye`)
    // logged out at the provider: the next sign-in asks who you are again (no single sign-on left)
    const start = await browser.send("/auth/signin/idp", { form: { csrfToken: await browser.csrf() } })
    const again = await fetch(start.location as string, {
      redirect: "manual",
      headers: { cookie: session.jar.header(new URL(provider.issuer)) },
    })
    expect(new URL(again.headers.get("location") as string, provider.issuer).pathname).toMatch(/^\/interaction\//)
    expect(log.errors).toEqual([])
  })
})

describe.each(["database", "database, Auth.js adapter"] as const)("RP-initiated logout after a second sign-in (%s sessions)", (storage) => {
  it("the hint is the ID token of the sign-in that made this session, not the account row's first one; the provider accepts it", async () => {
    const { base, provider, adapter, log, idTokens } = await appWithProvider(storage)
    const browser = new HttpBrowser([base])
    await signIn(browser, provider, provider.session())
    const plain = await browser.send("/auth/signout", { form: { csrfToken: await browser.csrf() } })
    expect(plain.res.status).toBe(303)
    const second = provider.session()
    await signIn(browser, provider, second)
    expect(idTokens).toHaveLength(2)
    expect(idTokens[1]).not.toBe(idTokens[0])
    // the account row still holds the first sign-in's ID token (Auth.js writes it when linking only)
    expect((await adapter?.getAccount?.("user-alice", "idp"))?.id_token).toBe(idTokens[0])

    const out = await browser.send("/auth/signout", {
      form: { csrfToken: await browser.csrf(), provider: "idp", callbackUrl: `${base}/goodbye` },
    })
    expect(out.res.status).toBe(303)
    expect(new URL(out.location as string).searchParams.get("id_token_hint")).toBe(idTokens[1])
    const back = await browser.send(await provider.endSession(second, out.location as string))
    expect(back.location).toBe(`${base}/goodbye`)
    expect(log.errors).toEqual([])
  })
})
