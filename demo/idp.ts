/**
 * The demo's own OpenID provider: panva's oidc-provider, in-process on 127.0.0.1, so "Sign in with Demo IdP"
 * works offline. Discovery, JWKS, PKCE, the code grant, ID tokens and userinfo are oidc-provider's own;
 * this file adds a small login page a person can use (pick a demo account, no password), grants the
 * demo's scopes without a consent screen, and keeps everything in memory (keys, cookies keys, state).
 *
 * There is no single sign-on: the IdP ignores its own session cookie when asked to sign in, so every sign-in
 * asks which account. Logging out there (RP-initiated logout from the demo's sign-out page) ends that
 * session and tells the demo by back-channel logout.
 * Modelled on tests/support/oidc-provider.ts, which is scripted (no page for people). Not for production.
 */
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { exportJWK, generateKeyPair } from "jose"
import { type KoaContext, loadProvider, memoryAdapter, type Provider, readForm, withoutSessionCookie } from "./idp-support.js"

export interface DemoIdpAccount {
  sub: string
  email: string
  name: string
}

export const DEMO_IDP_ACCOUNTS: readonly DemoIdpAccount[] = Object.freeze([
  Object.freeze({ sub: "alice", email: "alice@example.test", name: "Alice Example" }),
  Object.freeze({ sub: "bob", email: "bob@example.test", name: "Bob Example" }),
])

export interface DemoIdpOptions {
  /** The client's redirect URIs, e.g. `http://localhost:3000/auth/callback/demo-idp`. */
  redirectUris: string[]
  /** Where the IdP may send the browser back after logout, e.g. `http://localhost:3000/auth/signout-callback`. */
  postLogoutRedirectUris?: string[]
  /** Where the IdP posts logout tokens when someone signs out there, e.g. `http://localhost:3000/auth/backchannel-logout/demo-idp`. */
  backchannelLogoutUri?: string
  /** Default 0: any free port. The issuer is `http://127.0.0.1:<port>`. */
  port?: number
  /** Where oidc-provider's server errors go. Default: console.error. */
  onError?: (error: unknown) => void
}

export interface DemoIdp {
  /** `http://127.0.0.1:<port>` */
  issuer: string
  port: number
  clientId: string
  /** Random per start: only the demo that started the IdP knows it. */
  clientSecret: string
  accounts: readonly DemoIdpAccount[]
  stop(): Promise<void>
}

// --- helpers ----------------------------------------------------------------------------------------

const SCOPES = "openid profile email"

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Demo IdP</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
form,p{margin:.5rem 0}button{width:100%;padding:.75rem;font:inherit;text-align:left;cursor:pointer}
button small{display:block;color:#555}.cancel button{text-align:center}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`
}

// --- startDemoIdp -----------------------------------------------------------------------------------

/** Starts the Demo IdP on 127.0.0.1 with one confidential client (client_secret_basic, PKCE S256). */
export async function startDemoIdp(options: DemoIdpOptions): Promise<DemoIdp> {
  const accounts = DEMO_IDP_ACCOUNTS
  const clientId = "authchart-demo"
  const clientSecret = randomBytes(24).toString("base64url")
  const onError = options.onError ?? ((error: unknown) => console.error("[demo idp]", error))

  const [Provider, signingKey] = await Promise.all([
    loadProvider(),
    generateKeyPair("RS256", { extractable: true, modulusLength: 2048 }).then(({ privateKey }) => exportJWK(privateKey)),
  ])

  // listen first: the issuer contains the port
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503
    res.end()
  }
  const server = createServer((req, res) => handler(req, res))
  const sockets = new Set<Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  server.listen(options.port ?? 0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  const issuer = `http://127.0.0.1:${port}`

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        client_name: "authchart demo",
        redirect_uris: options.redirectUris,
        token_endpoint_auth_method: "client_secret_basic",
        response_types: ["code"],
        grant_types: ["authorization_code"],
        ...(options.postLogoutRedirectUris ? { post_logout_redirect_uris: options.postLogoutRedirectUris } : {}),
        ...(options.backchannelLogoutUri ? { backchannel_logout_uri: options.backchannelLogoutUri } : {}),
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: "demo-idp-rs256", alg: "RS256", use: "sig" }] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    scopes: SCOPES.split(" "),
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    pkce: { methods: ["S256"], required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx: KoaContext, form: string) {
          ctx.type = "html"
          ctx.body = page(
            "Sign out of Demo IdP",
            `<p>The <strong>authchart demo</strong> signed you out. Sign out of the Demo IdP too?</p>
${form}<p><button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign out of Demo IdP</button></p>
<p class="cancel"><button type="submit" form="op.logoutForm">No, stay signed in here</button></p>`,
          )
        },
        async postLogoutSuccessSource(ctx: KoaContext) {
          ctx.type = "html"
          ctx.body = page("Signed out", "<p>You are signed out of the Demo IdP. Go back to the demo to sign in again.</p>")
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // the demo is first party: its scopes are granted without a consent screen
    async loadExistingGrant(ctx: KoaContext) {
      const accountId = ctx.oidc.session?.accountId
      const client = ctx.oidc.client
      if (!accountId || !client) return undefined
      const existingId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(client.clientId)
      const existing = existingId ? await provider.Grant.find(existingId) : undefined
      if (existing?.accountId === accountId) return existing
      const grant = new provider.Grant({ accountId, clientId: client.clientId })
      grant.addOIDCScope(SCOPES)
      await grant.save()
      return grant
    },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.find((a) => a.sub === sub)
      if (!account) return undefined
      return {
        accountId: account.sub,
        claims: async () => ({ sub: account.sub, email: account.email, email_verified: true, name: account.name }),
      }
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    clientBasedCORS: () => false,
    async renderError(ctx: KoaContext, out: { error?: string; error_description?: string }) {
      ctx.type = "html"
      ctx.body = page(
        "Something went wrong",
        `<p><strong>${escapeHtml(String(out.error ?? "error"))}</strong>: ${escapeHtml(String(out.error_description ?? ""))}</p>
<p>Go back to the demo and start signing in again.</p>`,
      )
    },
  })
  provider.on("server_error", (_ctx: unknown, error: unknown) => onError(error))

  // the login page: pick an account (GET), then the choice (POST) finishes the login interaction
  provider.use(async (ctx, next) => {
    const uid = /^\/interaction\/([\w-]+)$/.exec(ctx.path)?.[1]
    if (!uid) return next()
    let details: Awaited<ReturnType<Provider["interactionDetails"]>>
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res)
    } catch {
      ctx.status = 400
      ctx.type = "html"
      ctx.body = page("Sign-in expired", "<p>This sign-in expired or was already used. Go back to the demo and start again.</p>")
      return
    }
    if (details.uid !== uid || details.prompt.name !== "login") {
      ctx.status = 400
      ctx.type = "html"
      ctx.body = page("Unexpected request", "<p>Go back to the demo and start signing in again.</p>")
      return
    }
    const action = `/interaction/${escapeHtml(uid)}`
    if (ctx.method === "GET") {
      const choices = accounts
        .map(
          (a) =>
            `<form method="post" action="${action}"><input type="hidden" name="account" value="${escapeHtml(a.sub)}"><button type="submit">Continue as ${escapeHtml(a.name)}<small>${escapeHtml(a.email)}</small></button></form>`,
        )
        .join("\n")
      ctx.type = "html"
      ctx.body = page(
        "Sign in to Demo IdP",
        `<p>The <strong>authchart demo</strong> asks who you are. Pick a demo account (no password: this identity provider exists only to try the demo).</p>
${choices}
<form class="cancel" method="post" action="${action}"><input type="hidden" name="decision" value="deny"><button type="submit">Cancel</button></form>`,
      )
      return
    }
    if (ctx.method !== "POST") {
      ctx.status = 405
      return
    }
    const form = await readForm(ctx.req)
    let result: Record<string, unknown>
    if (form.get("decision") === "deny") {
      result = { error: "access_denied", error_description: "The person cancelled the sign-in." }
    } else {
      const account = accounts.find((a) => a.sub === form.get("account"))
      if (!account) {
        ctx.status = 400
        ctx.type = "html"
        ctx.body = page("Unknown account", `<p>Pick one of the demo accounts.</p><p><a href="${action}">Back</a></p>`)
        return
      }
      result = { login: { accountId: account.sub, remember: false } }
    }
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result)
    ctx.status = 303
    ctx.redirect(returnTo)
  })

  const callback = provider.callback()
  handler = (req, res) => {
    withoutSessionCookie(req)
    callback(req, res)
  }

  let stopped: Promise<void> | undefined
  return {
    issuer,
    port,
    clientId,
    clientSecret,
    accounts,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
      })
      return stopped
    },
  }
}
