/**
 * A real OpenID Provider (panva's oidc-provider v8) for authchart's OAuth/OIDC end-to-end tests.
 *
 * Nothing of the protocol is mocked: discovery, JWKS, authorization (query and form_post), PKCE, the
 * code grant, client authentication, ID tokens and userinfo are oidc-provider's own. The harness adds:
 *  - a tiny deterministic interaction handler (`/interaction/:uid`) instead of devInteractions,
 *  - `authorize()`, a scripted browser with its own cookie jar that logs in and consents,
 *  - token-endpoint fault injection and bookkeeping (a Koa middleware placed before the provider's routes),
 *  - an `issParameter` switch to drop RFC 9207 `iss` (oidc-provider v8 always sends it; there is no option),
 *  - a per-server in-memory adapter (the bundled MemoryAdapter is process-global and logs a warning),
 *  - logout: RP-initiated logout and back-channel logout are on; `session()` keeps a scripted browser's
 *    IdP session across `authorize()` calls and `endSession()` ends it (oidc-provider then posts logout
 *    tokens to every client's `backchannel_logout_uri`); `signWithProviderKey` signs a JWT with the
 *    provider's own key, for tokens oidc-provider would never send.
 *
 * All configuration that oidc-provider would otherwise warn about ("you SHOULD/MUST change ...") is set
 * explicitly, so the provider is silent. No network access beyond 127.0.0.1.
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { SignJWT, exportJWK, generateKeyPair, importJWK } from "jose"
import type { JWK } from "jose"
import { memoryAdapter, readBody } from "../../demo/idp-support.js"

// ---------------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------------

export interface TestClient {
  client_id: string
  client_secret?: string
  redirect_uris: string[]
  token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "none"
  response_types?: string[]
  grant_types?: string[]
  /** RP-Initiated Logout 1.0: where the provider may send the browser back after logout. */
  post_logout_redirect_uris?: string[]
  /** Back-Channel Logout 1.0: where the provider posts logout tokens. */
  backchannel_logout_uri?: string
  /** Back-Channel Logout 1.0: `sid` in ID and logout tokens. Default false (oidc-provider's default). */
  backchannel_logout_session_required?: boolean
}

export interface TestAccount {
  sub: string
  email: string
  name: string
  picture?: string
  email_verified?: boolean
}

export type AuthorizeResult = { kind: "redirect"; url: string } | { kind: "form_post"; action: string; fields: Record<string, string> }

export type TokenFault = "500" | "malformed" | "slow" | null

export interface TokenRequestLog {
  count: number
  /** Requests by `grant_type` (e.g. `refresh_token`), faulted ones included. */
  grants: Record<string, number>
  lastAuth: "basic" | "post" | "none" | null
  lastBody: Record<string, string>
}

/** A scripted browser's session at the provider (its cookie jar), for single sign-on and logout. */
export interface IdpSession {
  readonly jar: CookieJar
}

/** What the provider did about back-channel logout so far (counters of oidc-provider's events). */
export interface BackchannelLog {
  /** Logout tokens an RP answered with 200. */
  delivered: number
  /** Deliveries that failed (the RP answered something else, or could not be reached). */
  failed: unknown[]
}

export interface OidcServer {
  /** `http://127.0.0.1:<port>` */
  issuer: string
  port: number
  accounts: TestAccount[]
  /**
   * Drive the provider's login+consent for an authorization URL as a scripted browser (own cookie jar per
   * call). Logs in as `account` (a `sub` or an `email`; default: the first account), consents, and returns
   * the final response back to the client: `{ kind: "redirect", url }` (the Location to redirect_uri with
   * code/state/iss, or error=...) or, for response_mode=form_post, `{ kind: "form_post", action, fields }`
   * parsed from the auto-submit HTML form. `deny: true` → the provider answers with error=access_denied.
   */
  authorize(authorizationUrl: string, options?: { account?: string; deny?: boolean; session?: IdpSession }): Promise<AuthorizeResult>
  /** A new, empty browser session at the provider: pass it to `authorize()` and `endSession()`. */
  session(): IdpSession
  /**
   * Logs `session` out at the provider, answering "yes, sign me out of the provider too": starts at
   * `url` (an RP's end-session redirect; default the bare end-session endpoint), confirms, and returns
   * where the provider finally sends the browser (a `post_logout_redirect_uri` with `state`, or its own
   * success page). Back-channel logout tokens are delivered before this returns.
   */
  endSession(session: IdpSession, url?: string): Promise<string>
  /** Back-channel logout deliveries (the same object is updated). */
  backchannel: BackchannelLog
  /**
   * Fault for the following token requests, until changed: "500" → 500 text/plain; "malformed" → 200 with
   * content-type application/json but a non-JSON body; "slow" → never answers until stop(); null → normal.
   */
  setTokenFault(fault: TokenFault): void
  /**
   * Milliseconds every following token request waits before oidc-provider answers it normally (0: none):
   * a slow token endpoint.
   */
  setTokenDelay(ms: number): void
  /** Live counters for the token endpoint (the same object is mutated; read it after each request). */
  tokenRequests: TokenRequestLog
  stop(): Promise<void>
}

export interface StartOidcProviderOptions {
  clients: TestClient[]
  accounts?: TestAccount[]
  /** Per-request timeout of the scripted browser in `authorize()`. Default 5 s (load benches give more). */
  browserTimeoutMs?: number
  /** RFC 9207 `iss` in authorization responses (and `authorization_response_iss_parameter_supported` in discovery). Default true. */
  issParameter?: boolean
  /** Lifetime of access tokens in seconds (oidc-provider `ttl.AccessToken`). Default 3600. */
  accessTokenTtl?: number
  /**
   * Lifetime in seconds of the access tokens the `refresh_token` grant issues. Default `accessTokenTtl`.
   * A short sign-in token and a long refreshed one let a test across processes (whose clocks it cannot
   * move) have a token that needs a refresh at once, and one that needs no second.
   */
  refreshedAccessTokenTtl?: number
  /**
   * Rotate refresh tokens at every use (oidc-provider `rotateRefreshToken`; a rotated token used again is
   * refused and revokes its grant). Default: oidc-provider's own rule. Refresh tokens are issued when the
   * sign-in asked for `offline_access` with `prompt=consent` (oidc-provider's `issueRefreshToken`).
   */
  rotateRefreshTokens?: boolean
  /**
   * How long the provider keeps an idle connection open, ms (Node's `server.keepAliveTimeout`, announced
   * as `Keep-Alive: timeout=<s>`). Default 1,000, with which clients keep no connection: Node's agent and
   * undici stop reusing one a second before the announced timeout, so every request connects anew. The
   * benches pass Node's own default (5,000) so that both apps' clients may reuse their connections.
   */
  keepAliveTimeoutMs?: number
}

export const DEFAULT_ACCOUNTS: readonly TestAccount[] = Object.freeze([
  {
    sub: "user-alice",
    email: "alice@example.test",
    name: "Alice Example",
    picture: "https://images.example.test/alice.png",
    email_verified: true,
  },
  { sub: "user-bob", email: "bob@example.test", name: "Bob Example", email_verified: false },
])

/** Per-request timeout of the scripted browser in authorize(). */
const BROWSER_TIMEOUT_MS = 5_000

// ---------------------------------------------------------------------------------------------------
// Minimal local typings for the parts of oidc-provider (and Koa) used here; the package ships no types.
// ---------------------------------------------------------------------------------------------------

interface KoaContext {
  method: string
  path: string
  req: IncomingMessage
  res: ServerResponse
  status: number
  body: unknown
  type: string
  get(field: string): string
  set(field: string, value: string): void
  redirect(url: string): void
  response: { get(field: string): string; set(field: string, value: string): void }
  oidc?: { body?: Record<string, unknown>; params?: Record<string, unknown> }
}
type KoaNext = () => Promise<void>
type KoaMiddleware = (ctx: KoaContext, next: KoaNext) => Promise<void>

interface InteractionDetails {
  uid: string
  prompt: {
    name: string
    reasons: string[]
    details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> }
  }
  params: Record<string, unknown> & { client_id?: string }
  session?: { accountId?: string }
  grantId?: string
}

interface GrantInstance {
  addOIDCScope(scope: string): void
  addOIDCClaims(claims: string[]): void
  addResourceScope(indicator: string, scope: string): void
  save(): Promise<string>
}

interface ProviderInstance {
  issuer: string
  app: { silent?: boolean }
  use(fn: KoaMiddleware): void
  callback(): (req: IncomingMessage, res: ServerResponse) => void
  on(event: string, listener: (...args: unknown[]) => void): unknown
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
  interactionResult(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<string>
  Grant: {
    new (init: { accountId: string; clientId: string }): GrantInstance
    find(id: string): Promise<GrantInstance | undefined>
  }
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance

async function loadProvider(): Promise<ProviderConstructor> {
  // A non-literal specifier keeps tsc from demanding type declarations for the untyped package.
  const specifier: string = "oidc-provider"
  const mod = (await import(specifier)) as { default: ProviderConstructor }
  return mod.default
}

// ---------------------------------------------------------------------------------------------------
// Keys (generated once per process, RS256) and a fixed cookie key list
// ---------------------------------------------------------------------------------------------------

const COOKIE_KEYS = ["authchart-oidc-test-cookie-key-1-0123456789", "authchart-oidc-test-cookie-key-2-9876543210"]

let signingJwks: Promise<{ keys: JWK[] }> | undefined

/**
 * Signs `payload` as every provider of this process would (the same RS256 key and `kid`): for tokens
 * that must verify against the provider's JWKS but that oidc-provider would never issue.
 */
export async function signWithProviderKey(payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const [jwk] = (await getSigningJwks()).keys
  const key = await importJWK(jwk as JWK, "RS256")
  return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: jwk?.kid as string, ...header }).sign(key)
}
function getSigningJwks(): Promise<{ keys: JWK[] }> {
  signingJwks ??= (async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true, modulusLength: 2048 })
    const jwk = await exportJWK(privateKey)
    return { keys: [{ ...jwk, kid: "authchart-test-rs256", alg: "RS256", use: "sig" }] }
  })()
  return signingJwks
}

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------

function flattenBody(body: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(body ?? {})) {
    if (typeof value === "string") out[key] = value
    else if (Array.isArray(value)) out[key] = value.map(String).join(",")
    else if (value !== undefined && value !== null) out[key] = String(value)
  }
  return out
}

function classifyAuth(authorization: string, body: Record<string, string>): TokenRequestLog["lastAuth"] {
  if (/^basic\s/i.test(authorization)) return "basic"
  if (body.client_secret !== undefined) return "post"
  return "none"
}

function decodeHtml(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const e = entity.toLowerCase()
    if (e === "amp") return "&"
    if (e === "lt") return "<"
    if (e === "gt") return ">"
    if (e === "quot") return '"'
    if (e === "apos") return "'"
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16))
    return String.fromCodePoint(parseInt(e.slice(1), 10))
  })
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")
}

/** Parses oidc-provider's form_post page: `<form method="post" action="...">` with hidden inputs. */
export function parseFormPost(html: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (!form) return null
  const fields: Record<string, string> = {}
  for (const input of (form[2] ?? "").matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1]
    const value = /\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? ""
    if (name !== undefined) fields[decodeHtml(name)] = decodeHtml(value)
  }
  return { action: decodeHtml(form[1] ?? ""), fields }
}

/** A path-aware cookie jar for one scripted browser (single host). */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>()

  store(requestUrl: URL, response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(/;\s*/)
      const eq = pair.indexOf("=")
      if (eq <= 0) continue
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      let path = requestUrl.pathname.replace(/\/[^/]*$/, "") || "/"
      let expired = value === ""
      for (const attribute of attributes) {
        const [rawKey = "", ...rest] = attribute.split("=")
        const key = rawKey.trim().toLowerCase()
        const attrValue = rest.join("=")
        if (key === "path" && attrValue.startsWith("/")) path = attrValue
        if (key === "max-age" && Number(attrValue) <= 0) expired = true
        if (key === "expires" && Date.parse(attrValue) <= Date.now()) expired = true
      }
      const id = `${name};${path}`
      if (expired) this.cookies.delete(id)
      else this.cookies.set(id, { name, value, path })
    }
  }

  header(url: URL): string {
    const matches = [...this.cookies.values()]
      .filter(({ path }) => url.pathname === path || url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`))
      .sort((a, b) => b.path.length - a.path.length)
    return matches.map(({ name, value }) => `${name}=${value}`).join("; ")
  }
}

// ---------------------------------------------------------------------------------------------------
// closedPort
// ---------------------------------------------------------------------------------------------------

/** A loopback port with nothing listening (bound once to get a free number, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

// ---------------------------------------------------------------------------------------------------
// startOidcProvider
// ---------------------------------------------------------------------------------------------------

/** oidc-provider's `ttl.AccessToken`: a number, or a function of the grant when refreshed tokens differ. */
function accessTokenTtl(options: StartOidcProviderOptions): number | ((ctx: KoaContext) => number) {
  const base = options.accessTokenTtl ?? 3600
  const refreshed = options.refreshedAccessTokenTtl
  if (refreshed === undefined) return base
  return (ctx) => (ctx.oidc?.params?.grant_type === "refresh_token" ? refreshed : base)
}

export async function startOidcProvider(options: StartOidcProviderOptions): Promise<OidcServer> {
  const accounts = (options.accounts ?? DEFAULT_ACCOUNTS).map((account) => ({ ...account }))
  if (accounts.length === 0) throw new Error("startOidcProvider: at least one account is required")
  const issParameter = options.issParameter ?? true

  const [Provider, jwks] = await Promise.all([loadProvider(), getSigningJwks()])

  // Listen first: the issuer must contain the port, and the Provider needs the issuer up front.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503
    res.end()
  }
  const server = createServer((req, res) => handler(req, res))
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 1_000
  const sockets = new Set<Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const issuer = `http://127.0.0.1:${port}`

  const findAccountBySub = (sub: string) => accounts.find((a) => a.sub === sub)

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients: options.clients.map((client) => ({
      client_id: client.client_id,
      ...(client.client_secret !== undefined ? { client_secret: client.client_secret } : {}),
      redirect_uris: client.redirect_uris,
      token_endpoint_auth_method:
        client.token_endpoint_auth_method ?? (client.client_secret === undefined ? "none" : "client_secret_basic"),
      response_types: client.response_types ?? ["code"],
      grant_types: client.grant_types ?? ["authorization_code", "refresh_token"],
      ...(client.post_logout_redirect_uris ? { post_logout_redirect_uris: client.post_logout_redirect_uris } : {}),
      ...(client.backchannel_logout_uri ? { backchannel_logout_uri: client.backchannel_logout_uri } : {}),
      ...(client.backchannel_logout_session_required !== undefined
        ? { backchannel_logout_session_required: client.backchannel_logout_session_required }
        : {}),
    })),
    jwks,
    cookies: { keys: COOKIE_KEYS },
    scopes: ["openid", "profile", "email", "offline_access"],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name", "picture"],
    },
    conformIdTokenClaims: false,
    pkce: {
      methods: ["S256"],
      required: (_ctx: unknown, client: { clientAuthMethod?: string }) => client.clientAuthMethod === "none",
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // explicit pages (oidc-provider warns about its defaults); the confirm button says "yes, log out here too"
        async logoutSource(ctx: KoaContext, form: string) {
          ctx.type = "html"
          ctx.body = `<!DOCTYPE html><html><body>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button></body></html>`
        },
        async postLogoutSuccessSource(ctx: KoaContext) {
          ctx.type = "html"
          ctx.body = "<!DOCTYPE html><html><body><p>Signed out.</p></body></html>"
        },
      },
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    async findAccount(_ctx: unknown, sub: string) {
      const account = findAccountBySub(sub)
      if (!account) return undefined
      return {
        accountId: account.sub,
        async claims() {
          return {
            sub: account.sub,
            email: account.email,
            email_verified: account.email_verified ?? true,
            name: account.name,
            ...(account.picture !== undefined ? { picture: account.picture } : {}),
          }
        },
      }
    },
    // Explicit values for everything oidc-provider otherwise warns about ("you SHOULD change ...").
    ...(options.rotateRefreshTokens !== undefined ? { rotateRefreshToken: () => options.rotateRefreshTokens } : {}),
    ttl: {
      AccessToken: accessTokenTtl(options),
      AuthorizationCode: 60,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    clientBasedCORS: () => true,
    async renderError(ctx: KoaContext, out: Record<string, unknown>) {
      ctx.type = "html"
      const rows = Object.entries(out)
        .map(
          ([key, value]) =>
            `<p><strong>${escapeHtml(key)}</strong>: <span class="${escapeHtml(key)}">${escapeHtml(String(value))}</span></p>`,
        )
        .join("")
      ctx.body = `<!DOCTYPE html><html><head><title>oidc test provider error</title></head><body>${rows}</body></html>`
    },
  })

  provider.on("server_error", (_ctx: unknown, error: unknown) => {
    console.error("[oidc test provider] server_error:", error)
  })
  const backchannel: BackchannelLog = { delivered: 0, failed: [] }
  provider.on("backchannel.success", () => {
    backchannel.delivered += 1
  })
  provider.on("backchannel.error", (_ctx: unknown, error: unknown) => {
    backchannel.failed.push(error)
  })

  // --- token endpoint faults + bookkeeping ----------------------------------------------------------
  let tokenFault: TokenFault = null
  let tokenDelayMs = 0
  const tokenRequests: TokenRequestLog = { count: 0, grants: {}, lastAuth: null, lastBody: {} }
  const countGrant = (body: Record<string, string>) => {
    const grant = body.grant_type ?? "none"
    tokenRequests.grants[grant] = (tokenRequests.grants[grant] ?? 0) + 1
  }
  const slowWaiters = new Set<() => void>()
  let stopped = false

  provider.use(async (ctx, next) => {
    if (ctx.method !== "POST" || ctx.path !== "/token") return next()
    tokenRequests.count += 1
    const authorization = ctx.get("authorization")
    const fault = tokenFault
    if (fault === null) {
      if (tokenDelayMs > 0) await sleep(tokenDelayMs)
      try {
        await next()
      } finally {
        // oidc-provider parsed the body itself (ctx.oidc.body); parsing it here would make it warn.
        const body = flattenBody(ctx.oidc?.body)
        countGrant(body)
        tokenRequests.lastBody = body
        tokenRequests.lastAuth = classifyAuth(authorization, body)
      }
      return
    }
    const body = Object.fromEntries(new URLSearchParams(await readBody(ctx.req)))
    countGrant(body)
    tokenRequests.lastBody = body
    tokenRequests.lastAuth = classifyAuth(authorization, body)
    if (fault === "500") {
      ctx.status = 500
      ctx.type = "text/plain"
      ctx.body = "injected fault: internal server error"
    } else if (fault === "malformed") {
      ctx.status = 200
      ctx.type = "application/json"
      ctx.body = "<html>this is not JSON {"
    } else {
      // "slow": hold the request until stop(); stop() destroys the socket, so nothing is ever written.
      if (!stopped) await new Promise<void>((resolve) => slowWaiters.add(resolve))
      ctx.status = 503
      ctx.body = "stopped"
    }
  })

  // --- RFC 9207 switch: oidc-provider v8 always adds `iss`; strip it from responses when disabled ----
  if (!issParameter) {
    provider.use(async (ctx, next) => {
      await next()
      if (ctx.path === "/.well-known/openid-configuration" && ctx.body && typeof ctx.body === "object") {
        delete (ctx.body as Record<string, unknown>).authorization_response_iss_parameter_supported
        return
      }
      const location = ctx.response.get("location")
      if (location) {
        const target = new URL(location, issuer)
        if (target.origin !== issuer) {
          if (target.searchParams.get("iss") === issuer) target.searchParams.delete("iss")
          if (target.hash) {
            const fragment = new URLSearchParams(target.hash.slice(1))
            if (fragment.get("iss") === issuer) {
              fragment.delete("iss")
              target.hash = fragment.toString()
            }
          }
          ctx.response.set("location", target.href)
        }
      }
      if (typeof ctx.body === "string" && ctx.body.includes('name="iss"')) {
        ctx.body = ctx.body.replace(/\s*<input type="hidden" name="iss" value="[^"]*"\/>/g, "")
      }
    })
  }

  // --- minimal interaction handler (replaces devInteractions) ---------------------------------------
  provider.use(async (ctx, next) => {
    const match = /^\/interaction\/([^/]+)$/.exec(ctx.path)
    if (!match) return next()
    const details = await provider.interactionDetails(ctx.req, ctx.res)
    if (details.uid !== match[1]) {
      ctx.status = 400
      ctx.body = "interaction uid mismatch"
      return
    }
    if (ctx.method === "GET") {
      ctx.type = "html"
      ctx.body = `<!DOCTYPE html><html><body><form method="post" action="/interaction/${escapeHtml(details.uid)}" data-prompt="${escapeHtml(details.prompt.name)}"><input name="account"/><button name="decision" value="allow">Allow</button><button name="decision" value="deny">Deny</button></form></body></html>`
      return
    }
    if (ctx.method !== "POST") {
      ctx.status = 405
      return
    }
    const form = new URLSearchParams(await readBody(ctx.req))
    let result: Record<string, unknown>
    if (form.get("decision") === "deny") {
      result = { error: "access_denied", error_description: "denied by test" }
    } else if (details.prompt.name === "login") {
      const wanted = form.get("account") || accounts[0]!.sub
      const account = accounts.find((a) => a.sub === wanted || a.email === wanted)
      if (!account) {
        ctx.status = 400
        ctx.body = `unknown test account ${wanted}`
        return
      }
      result = { login: { accountId: account.sub } }
    } else if (details.prompt.name === "consent") {
      const accountId = details.session?.accountId
      const clientId = details.params.client_id
      if (!accountId || !clientId) throw new Error("consent prompt without session/client")
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId }))
        : new provider.Grant({ accountId, clientId })
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(" "))
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims)
      for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(" "))
      }
      const grantId = await grant.save()
      result = { consent: details.grantId ? {} : { grantId } }
    } else {
      ctx.status = 400
      ctx.body = `unsupported prompt ${details.prompt.name}`
      return
    }
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true })
    ctx.status = 303
    ctx.redirect(returnTo)
  })

  handler = provider.callback()

  // --- scripted browser -----------------------------------------------------------------------------
  const requester =
    (jar: CookieJar) =>
    async (url: URL, init: { method?: string; form?: URLSearchParams } = {}) => {
      const headers: Record<string, string> = { accept: "text/html" }
      const cookie = jar.header(url)
      if (cookie) headers.cookie = cookie
      if (init.form) headers["content-type"] = "application/x-www-form-urlencoded"
      const response = await fetch(url, {
        method: init.method ?? "GET",
        headers,
        ...(init.form ? { body: init.form.toString() } : {}),
        redirect: "manual",
        signal: AbortSignal.timeout(options.browserTimeoutMs ?? BROWSER_TIMEOUT_MS),
      })
      jar.store(url, response)
      return response
    }

  /** What a scripted page visit decides: the walk's result, or a form to post next. */
  type PageStep<T> = { done: T } | { post: URL; form: URLSearchParams }

  /**
   * Walks the provider like a browser with `jar`: follows its redirects, lets `page` answer each page it
   * shows, and ends with `left(url)` as soon as a redirect leaves the provider.
   */
  async function browse<T>(
    jar: CookieJar,
    start: string,
    left: (url: URL) => T,
    page: (url: URL, status: number, text: string) => PageStep<T>,
  ): Promise<T> {
    if (stopped) throw new Error("oidc test provider is stopped")
    const request = requester(jar)
    let url = new URL(start)
    let pending: { method: string; form?: URLSearchParams } = { method: "GET" }
    for (let hop = 0; hop < 20; hop += 1) {
      if (url.origin !== issuer) return left(url)
      const response = await request(url, pending)
      const location = response.headers.get("location")
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel()
        url = new URL(location, url)
        pending = { method: "GET" }
        continue
      }
      const step = page(url, response.status, await response.text())
      if ("done" in step) return step.done
      url = step.post
      pending = { method: "POST", form: step.form }
    }
    throw new Error("oidc test provider: too many redirects")
  }

  const unexpected = (url: URL, status: number, text: string) =>
    new Error(`oidc test provider: unexpected ${status} at ${url.pathname}: ${text.slice(0, 500)}`)

  async function authorize(
    authorizationUrl: string,
    opts: { account?: string; deny?: boolean; session?: IdpSession } = {},
  ): Promise<AuthorizeResult> {
    const left = (url: URL): AuthorizeResult => ({ kind: "redirect", url: url.href })
    return browse<AuthorizeResult>(opts.session?.jar ?? new CookieJar(), authorizationUrl, left, (url, status, text) => {
      if (status === 200 && /^\/interaction\/[^/]+$/.test(url.pathname)) {
        const form = new URLSearchParams({ decision: opts.deny ? "deny" : "allow" })
        if (opts.account !== undefined) form.set("account", opts.account)
        return { post: url, form }
      }
      const formPost = parseFormPost(text)
      const action = formPost ? new URL(formPost.action, url) : undefined
      if (formPost && action && action.origin !== issuer)
        return { done: { kind: "form_post", action: action.href, fields: formPost.fields } }
      throw unexpected(url, status, text)
    })
  }

  async function endSession(session: IdpSession, start = `${issuer}/session/end`): Promise<string> {
    return browse<string>(
      session.jar,
      start,
      (url) => url.href,
      (url, status, text) => {
        if (status === 200 && url.pathname === "/session/end/success") return { done: url.href }
        const form = parseFormPost(text)
        if (status !== 200 || !form) throw unexpected(url, status, text)
        // the confirmation (or the auto-submitted form without a session): "yes, log out of the provider too"
        return { post: new URL(form.action, url), form: new URLSearchParams({ ...form.fields, logout: "yes" }) }
      },
    )
  }

  async function stop(): Promise<void> {
    if (stopped) return
    stopped = true
    for (const resolve of slowWaiters) resolve()
    slowWaiters.clear()
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeAllConnections()
    for (const socket of sockets) socket.destroy()
    await closed
  }

  return {
    issuer,
    port,
    accounts,
    authorize,
    session: () => ({ jar: new CookieJar() }),
    endSession,
    backchannel,
    setTokenFault(fault) {
      tokenFault = fault
    },
    setTokenDelay(ms) {
      tokenDelayMs = ms
    },
    tokenRequests,
    stop,
  }
}
