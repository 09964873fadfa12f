/**
 * `createTestIdP()`: a small OpenID Provider on a loopback port for an app's sign-in tests, built on
 * `jose` (already an authchart dependency), so nothing more is installed. It implements what a
 * confidential client's code flow uses (OpenID Connect Core 1.0 §3.1, Discovery 1.0): discovery, JWKS,
 * an authorization endpoint with a login page listing the test accounts (a real browser can use it),
 * the token endpoint (`client_secret_basic` or `_post`, PKCE S256 checked, codes single-use for 60 s),
 * RS256 ID tokens with `nonce`, and userinfo. Authorization responses carry `iss` (RFC 9207). Logout: an
 * `end_session_endpoint` (RP-Initiated Logout 1.0) and back-channel logout tokens for an app's receiver.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { SignJWT, exportJWK, generateKeyPair } from "jose"
import OIDC from "../providers/oidc.js"
import type { OAuthOptions } from "../providers/oauth.js"
import type { OIDCConfig } from "../providers/oauth-types.js"
import { putExpiring } from "./expiring.js"
import { loginPage, readForm, send, sendJson } from "./idp-http.js"
import { type IdpLogoutContext, endSession, logoutToken, postLogoutToken } from "./idp-logout.js"

/** An account that can sign in at the test IdP; its claims go into the ID token and userinfo. */
export interface TestIdPAccount {
  sub: string
  email: string
  name?: string
  picture?: string
  email_verified?: boolean
}

/** Options of {@link createTestIdP}. */
export interface TestIdPOptions {
  /** Default: `alice` (alice@example.test, verified) and `bob` (bob@example.test). */
  accounts?: TestIdPAccount[]
  /** Default `test-client`. */
  clientId?: string
  /** Default: random. */
  clientSecret?: string
  /** Registered redirect URIs; default: any http(s) URL is accepted. */
  redirectUris?: string[]
  /** Registered post-logout redirect URIs (RP-initiated logout); default: any http(s) URL is accepted. */
  postLogoutRedirectUris?: string[]
}

/** The running IdP. */
export interface TestIdP {
  /** `http://127.0.0.1:<port>`: the `issuer` of the app's OIDC provider. */
  issuer: string
  clientId: string
  clientSecret: string
  accounts: TestIdPAccount[]
  /** The `sub` of every valid `id_token_hint` the end-session endpoint received, in order. */
  logouts: string[]
  /**
   * A back-channel logout token for `sub`, signed with the IdP's key; `claims` replace claims, or drop
   * them when `undefined` (to test an app's refusals).
   */
  logoutToken(sub: string, claims?: Record<string, unknown>): Promise<string>
  /** Posts a logout token for `sub` to an app's back-channel logout URI, as a provider does; the HTTP status. */
  backchannelLogout(uri: string, sub: string): Promise<number>
  /** An OIDC provider for the app's config (`id` default `test-idp`), with issuer and client filled in. */
  provider(options?: Partial<OAuthOptions>): OIDCConfig
  /** Stops the server. */
  close(): Promise<void>
}

interface PendingLogin {
  redirectUri: string
  state: string | undefined
  nonce: string | undefined
  challenge: string | undefined
  scope: string
  expires: number
}
interface IssuedCode extends Omit<PendingLogin, "state"> {
  account: TestIdPAccount
}

const DEFAULT_ACCOUNTS: TestIdPAccount[] = [
  { sub: "alice", email: "alice@example.test", name: "Alice", email_verified: true },
  { sub: "bob", email: "bob@example.test", name: "Bob", email_verified: false },
]
const CODE_TTL_MS = 60_000
const LOGIN_TTL_MS = 10 * 60_000
const TOKEN_TTL_S = 3600

const random = () => randomBytes(24).toString("base64url")

/**
 * Starts a test OpenID Provider on 127.0.0.1.
 *
 * @example
 * ```ts
 * import { createTestIdP } from "authchart/testing"
 * const idp = await createTestIdP()
 * const config = { ...authConfig, providers: [idp.provider()] } // sign in as "alice" or "bob"
 * await idp.close()
 * ```
 */
export async function createTestIdP(options: TestIdPOptions = {}): Promise<TestIdP> {
  const accounts = options.accounts ?? DEFAULT_ACCOUNTS
  const clientId = options.clientId ?? "test-client"
  const clientSecret = options.clientSecret ?? random()
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  const kid = random().slice(0, 12)
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" }
  const logins = new Map<string, PendingLogin>()
  const codes = new Map<string, IssuedCode>()
  const accessTokens = new Map<string, { account: TestIdPAccount; expires: number }>()
  const logouts: string[] = []
  let issuer = ""
  const logout = (): IdpLogoutContext => ({
    issuer,
    clientId,
    kid,
    privateKey,
    publicKey,
    postLogoutRedirectUris: options.postLogoutRedirectUris,
  })

  const redirectAllowed = (uri: string): boolean => {
    if (options.redirectUris) return options.redirectUris.includes(uri)
    return /^https?:\/\//.test(uri)
  }

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams
    const redirectUri = q.get("redirect_uri") ?? ""
    if (q.get("client_id") !== clientId) return send(res, 400, "Unknown client_id.")
    if (!redirectAllowed(redirectUri)) return send(res, 400, "redirect_uri is not registered.")
    const back = new URL(redirectUri)
    const state = q.get("state") ?? undefined
    const fail = (error: string) => redirectBack(res, back, { error, state })
    if (q.get("response_type") !== "code") return fail("unsupported_response_type")
    if (!(q.get("scope") ?? "").split(" ").includes("openid")) return fail("invalid_scope")
    const challenge = q.get("code_challenge") ?? undefined
    if (challenge !== undefined && q.get("code_challenge_method") !== "S256") return fail("invalid_request")
    const interaction = random()
    putExpiring(
      logins,
      interaction,
      {
        redirectUri,
        state,
        nonce: q.get("nonce") ?? undefined,
        challenge,
        scope: q.get("scope") ?? "openid",
        expires: Date.now() + LOGIN_TTL_MS,
      },
      Date.now(),
    )
    send(res, 200, loginPage(`${issuer}/login`, interaction, accounts), "text/html; charset=utf-8")
  }

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const pending = logins.get(form.get("interaction") ?? "")
    logins.delete(form.get("interaction") ?? "")
    if (!pending || pending.expires < Date.now()) return send(res, 400, "This sign-in expired; start again.")
    const back = new URL(pending.redirectUri)
    const account = accounts.find((a) => a.sub === form.get("account"))
    if (form.has("deny") || !account) return redirectBack(res, back, { error: "access_denied", state: pending.state })
    const code = random()
    putExpiring(codes, code, { ...pending, account, expires: Date.now() + CODE_TTL_MS }, Date.now())
    redirectBack(res, back, { code, state: pending.state })
  }

  function redirectBack(res: ServerResponse, back: URL, params: Record<string, string | undefined>): void {
    for (const [name, value] of Object.entries({ ...params, iss: issuer })) if (value !== undefined) back.searchParams.set(name, value)
    res.writeHead(303, { location: back.href, "cache-control": "no-store" }).end()
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "")?.[1]
    const [id, secret] = basic
      ? Buffer.from(basic, "base64")
          .toString()
          .split(":")
          .map((part) => decodeURIComponent(part))
      : [form.get("client_id"), form.get("client_secret")]
    if (id !== clientId || secret !== clientSecret) return sendJson(res, 401, { error: "invalid_client" })
    if (form.get("grant_type") !== "authorization_code") return sendJson(res, 400, { error: "unsupported_grant_type" })
    const issued = codes.get(form.get("code") ?? "")
    codes.delete(form.get("code") ?? "")
    const verifier = form.get("code_verifier")
    const pkceOk =
      issued?.challenge === undefined ||
      (verifier !== null && createHash("sha256").update(verifier).digest("base64url") === issued.challenge)
    if (!issued || issued.expires < Date.now() || issued.redirectUri !== form.get("redirect_uri") || !pkceOk) {
      return sendJson(res, 400, { error: "invalid_grant" })
    }
    const accessToken = random()
    putExpiring(accessTokens, accessToken, { account: issued.account, expires: Date.now() + TOKEN_TTL_S * 1000 }, Date.now())
    const idToken = await new SignJWT({ ...claimsOf(issued.account), ...(issued.nonce ? { nonce: issued.nonce } : {}) })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(issuer)
      .setAudience(clientId)
      .setSubject(issued.account.sub)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_TTL_S}s`)
      .sign(privateKey)
    sendJson(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_TTL_S, id_token: idToken, scope: issued.scope })
  }

  function userinfo(req: IncomingMessage, res: ServerResponse): void {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? ""
    const granted = accessTokens.get(bearer)
    if (!granted || granted.expires < Date.now()) return sendJson(res, 401, { error: "invalid_token" })
    sendJson(res, 200, { sub: granted.account.sub, ...claimsOf(granted.account) })
  }

  const discovery = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    scopes_supported: ["openid", "profile", "email"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    claims_supported: ["sub", "email", "email_verified", "name", "picture"],
    authorization_response_iss_parameter_supported: true,
    end_session_endpoint: `${issuer}/logout`,
    backchannel_logout_supported: true,
  })

  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer)
    const route = `${req.method} ${url.pathname}`
    const handle = async (): Promise<void> => {
      if (route === "GET /.well-known/openid-configuration") return sendJson(res, 200, discovery())
      if (route === "GET /jwks") return sendJson(res, 200, { keys: [jwk] })
      if (route === "GET /authorize") return authorize(url, res)
      if (route === "POST /login") return login(req, res)
      if (route === "POST /token") return token(req, res)
      if (route === "GET /userinfo" || route === "POST /userinfo") return userinfo(req, res)
      if (route === "GET /logout") return endSession(logout(), url, res, logouts)
      send(res, 404, "Not found.")
    }
    handle().catch(() => {
      if (!res.headersSent) send(res, 500, "Test IdP error.")
      else res.destroy()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    logouts,
    logoutToken: (sub, claims) => logoutToken(logout(), sub, claims),
    backchannelLogout: (uri, sub) => postLogoutToken(logout(), uri, sub),
    provider: (overrides = {}) => OIDC({ id: "test-idp", name: "Test IdP", issuer, clientId, clientSecret, ...overrides }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function claimsOf(account: TestIdPAccount): Record<string, unknown> {
  const { sub: _sub, ...claims } = account
  return { email_verified: false, ...claims }
}
