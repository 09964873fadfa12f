/**
 * What the provider-token suites share: the real oidc-provider with short-lived access tokens and
 * refresh-token rotation, an OIDC provider config that asks for `offline_access` (with `prompt=consent`,
 * as oidc-provider requires), sign-in through it, and checks made at the IdP itself (userinfo accepts an
 * access token; the token endpoint refuses a refresh token).
 */
import * as o from "oauth4webapi"
import { afterAll, afterEach, beforeAll, vi } from "vitest"
import { type AuthClient, ORIGIN } from "../helpers.js"
import { DEFAULT_ACCOUNTS, type OidcServer, startOidcProvider } from "./oidc-provider.js"

export const CLIENT = { client_id: "tokens-client", client_secret: "tokens-secret-0123456789" }
/** Seconds an access token lives at the test IdP. */
export const ACCESS_TOKEN_TTL = 300

/** The token IdP; `refreshedAccessTokenTtl` (seconds) gives refreshed access tokens another lifetime. */
export function startTokenIdp(options: { refreshedAccessTokenTtl?: number } = {}): Promise<OidcServer> {
  return startOidcProvider({
    accounts: [...DEFAULT_ACCOUNTS, { sub: "user-zoe", email: "zoe@example.test", name: "Zoe Example", email_verified: true }],
    clients: [
      {
        ...CLIENT,
        redirect_uris: [`${ORIGIN}/auth/callback/idp`],
        // `sid` in ID tokens, for back-channel logout of one session
        backchannel_logout_uri: `${ORIGIN}/auth/backchannel-logout/idp`,
        backchannel_logout_session_required: true,
      },
    ],
    accessTokenTtl: ACCESS_TOKEN_TTL,
    rotateRefreshTokens: true,
    ...options,
  })
}

/** The IdP of a test file and the refresh requests it has answered so far. */
export interface TokenIdp {
  readonly idp: OidcServer
  refreshes(): number
}

/**
 * Starts the IdP once for the test file and stops it after; after each test the clock is real again
 * and the token endpoint answers normally.
 */
export function usesTokenIdp(): TokenIdp {
  let server: OidcServer | undefined
  beforeAll(async () => {
    server = await startTokenIdp()
  })
  afterAll(() => server?.stop())
  afterEach(() => {
    vi.useRealTimers()
    server?.setTokenFault(null)
  })
  return {
    get idp() {
      if (!server) throw new Error("the token IdP is not started yet")
      return server
    },
    refreshes: () => server?.tokenRequests.grants.refresh_token ?? 0,
  }
}

/** The OIDC provider `idp` of the apps under test. */
export function idpProvider(idp: OidcServer, extra: Record<string, unknown> = {}) {
  return {
    id: "idp",
    name: "IdP",
    type: "oidc" as const,
    issuer: idp.issuer,
    clientId: CLIENT.client_id,
    clientSecret: CLIENT.client_secret,
    authorization: { params: { scope: "openid profile email offline_access", prompt: "consent" } },
    ...extra,
  }
}

/** Signs `client` in with the IdP as `account` (default: the first test account). */
export async function signInWithIdp(idp: OidcServer, client: AuthClient, account?: string): Promise<void> {
  const csrfToken = await client.csrf()
  const start = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/home" } })
  const answer = await idp.authorize(start.headers.get("location") as string, account ? { account } : {})
  if (answer.kind !== "redirect") throw new Error("expected a redirect back from the IdP")
  const url = new URL(answer.url)
  const done = await client.send(`${url.pathname}${url.search}`)
  if (done.status !== 302 || !done.headers.get("location")?.endsWith("/home")) throw new Error(`sign-in failed: ${done.status}`)
}

/** `GET /auth/session` as JSON. */
export async function sessionOf(client: AuthClient): Promise<Record<string, unknown> | null> {
  return (await (await client.send("/auth/session")).json()) as Record<string, unknown> | null
}

/** The web `Request` of `client` for an app route (its cookies), for the web `getAccessToken`. */
export function requestOf(client: AuthClient, path = "/api/data"): Request {
  return new Request(`${ORIGIN}${path}`, { headers: { cookie: client.jar.header() } })
}

/** Moves the clock (Date only; timers stay real) `seconds` ahead, for both the app and the IdP. */
export function advanceClock(seconds: number): void {
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(Date.now() + seconds * 1000)
}

const server = async (idp: OidcServer) => {
  const issuer = new URL(idp.issuer)
  return o.processDiscoveryResponse(issuer, await o.discoveryRequest(issuer, { [o.allowInsecureRequests]: true }))
}
const http = { [o.allowInsecureRequests]: true, signal: () => AbortSignal.timeout(5_000) } as const

/** The `sub` the IdP's userinfo endpoint answers for `accessToken`, or null when it refuses the token. */
export async function userinfoSub(idp: OidcServer, accessToken: string): Promise<string | null> {
  const as = await server(idp)
  const response = await o.userInfoRequest(as, { client_id: CLIENT.client_id }, accessToken, http)
  if (!response.ok) return null
  return ((await response.json()) as { sub?: string }).sub ?? null
}

/** The IdP's answer to a refresh with `refreshToken`: "ok", or the OAuth error code. */
export async function refreshAtIdp(idp: OidcServer, refreshToken: string): Promise<string> {
  const as = await server(idp)
  const client = { client_id: CLIENT.client_id }
  const response = await o.refreshTokenGrantRequest(as, client, o.ClientSecretBasic(CLIENT.client_secret), refreshToken, http)
  try {
    await o.processRefreshTokenResponse(as, client, response)
    return "ok"
  } catch (err) {
    return err instanceof o.ResponseBodyError ? err.error : String(err)
  }
}
