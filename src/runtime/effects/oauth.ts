/**
 * The OAuth / OIDC flow's two effects, each "do the I/O, then validate" with oauth4webapi:
 * `startAuthorization` builds the authorization URL and its checks (PKCE S256 + state always, nonce for
 * OIDC); `finishAuthorization` validates the callback (state, RFC 9207 `iss`), redeems the code, checks
 * the ID token (nonce, iss, aud), reads userinfo where needed and maps the profile to a user.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import * as o from "oauth4webapi"
import {
  AuthError,
  CallbackRouteError,
  FlowStateError,
  InvalidCheck,
  OAuthCallbackError,
  OAuthProfileParseError,
  OAuthSignInError,
} from "../../errors.js"
import type { Identity } from "../../flow/index.js"
import type { AuthorizationStart, OAuthPending } from "../../machines/oauth.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import type { Profile, TokenSet, User } from "../../types.js"
import type { EffectContext } from "../flow.js"
import { authorizationServer, clientOf, discoveryCache, endpoint, httpOptions } from "./oauth-server.js"
import { effect } from "./effect.js"
import { asAuthError, redeemCode } from "./oauth-token.js"
import { proxyOf, sealProxyState } from "./redirect-proxy.js"
import { providerConfig } from "../provider-config.js"

/** Authorization parameters a sign-in request may add (RFC 9700: never redirect_uri, client_id, …). */
const ALLOWED_PARAMS = new Set(["prompt", "login_hint", "ui_locales", "acr_values", "max_age", "scope", "display", "hd"])
const FIXED_PARAMS = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "response_mode",
  "request",
  "request_uri",
])

const STORED_TOKEN_FIELDS = ["access_token", "token_type", "id_token", "refresh_token", "scope", "expires_at", "session_state"]

function providerOf(ctx: EffectContext): OAuthConfig {
  return providerConfig(ctx, "oauth", "oidc")
}

/** The exact redirect URI registered with the provider: ours, or the redirect proxy's. */
export function redirectUriOf(ctx: EffectContext, provider: OAuthConfig): string {
  const proxy = proxyOf(ctx, provider)
  const own = `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}`
  return proxy && proxy.origin !== ctx.origin ? `${proxy.href.replace(/\/+$/, "")}/callback/${encodeURIComponent(provider.id)}` : own
}

function checksOf(provider: OAuthConfig): { nonce: boolean } {
  const checks = provider.checks
  return { nonce: provider.type === "oidc" && (checks === undefined || checks.includes("nonce")) }
}

/** The `index`th 32 bytes of `random`, base64url (43 characters): a state, PKCE code verifier or nonce, as oauth4webapi makes them. */
function randomToken(random: Buffer, index: number): string {
  return random.subarray(index * 32, index * 32 + 32).toString("base64url")
}

/** RFC 7636 §4.2 S256: BASE64URL(SHA256(ASCII(code_verifier))), synchronous (WebCrypto's digest is a job of its own). */
export function pkceChallenge(codeVerifier: string): string {
  return createHash("sha256").update(codeVerifier, "ascii").digest("base64url")
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export const startAuthorization = effect<AuthorizationStart, { params: Record<string, unknown> }>(async (ctx, input) => {
  const cache = discoveryCache(ctx.config)
  const provider = providerOf(ctx)
  let server: o.AuthorizationServer
  try {
    server = await authorizationServer(provider, cache, ctx.now)
  } catch (err) {
    if (err instanceof AuthError) throw err
    throw new OAuthSignInError(`The provider "${provider.id}" could not be reached or described.`, { err })
  }
  if (!server.authorization_endpoint) throw new OAuthSignInError(`The provider "${provider.id}" has no authorization endpoint.`)
  const url = new URL(server.authorization_endpoint)
  // built apart and written into the URL once: each `url.searchParams.set` would re-serialise the URL
  const query = new URLSearchParams(url.search)
  const configured = endpoint(provider.authorization)
  for (const [key, value] of Object.entries(configured.params)) query.set(key, value)
  // the authorization parameters of the sign-in request's query (Auth.js' `authorizationParams`)
  for (const [key, value] of Object.entries(input.params)) {
    if (typeof value !== "string" || FIXED_PARAMS.has(key)) continue
    if (!ALLOWED_PARAMS.has(key) && !provider.allowedAuthorizationParams?.includes(key)) continue
    if (key === "scope") {
      const scopes = new Set([...(query.get("scope") ?? "").split(" "), ...value.split(" ")])
      query.set("scope", [...scopes].filter(Boolean).join(" "))
    } else query.set(key, value)
  }
  if (provider.type === "oidc" && !query.has("scope")) query.set("scope", "openid profile email")
  const redirectUri = redirectUriOf(ctx, provider)
  const ownCallback = `${ctx.authUrl}/callback/${encodeURIComponent(provider.id)}`
  const random = randomBytes(96) // one draw for state, code verifier and nonce: 32 bytes each (node:crypto: the pool is not in the kit)
  const state = redirectUri === ownCallback ? randomToken(random, 0) : sealProxyState(ctx, ownCallback)
  const codeVerifier = randomToken(random, 1)
  const nonce = checksOf(provider).nonce ? randomToken(random, 2) : null
  query.set("response_type", "code")
  query.set("client_id", provider.clientId ?? "")
  query.set("redirect_uri", redirectUri)
  query.set("state", state)
  query.set("code_challenge", pkceChallenge(codeVerifier))
  query.set("code_challenge_method", "S256")
  if (nonce) query.set("nonce", nonce)
  url.search = query.toString()
  return { url: url.href, pending: { state, codeVerifier, nonce, redirectUri, issuer: server.issuer } }
})

async function readProfile(
  provider: OAuthConfig,
  server: o.AuthorizationServer,
  tokens: o.TokenEndpointResponse,
  claims: o.IDToken | undefined,
): Promise<Profile> {
  const { client } = clientOf(provider)
  const userinfo = endpoint(provider.userinfo)
  if (typeof provider.userinfo === "object" && provider.userinfo.request) {
    const context = { tokens: { ...tokens }, provider: { id: provider.id, userinfo: { url: userinfo.url?.href } } }
    return { ...(await provider.userinfo.request(context)) }
  }
  if (claims && provider.idToken !== false) return { ...claims }
  if (!server.userinfo_endpoint) throw new CallbackRouteError(`Provider "${provider.id}" has no userinfo endpoint.`)
  const response = await o.userInfoRequest(server, client, tokens.access_token, httpOptions(provider, new URL(server.userinfo_endpoint)))
  if (claims) return { ...(await o.processUserInfoResponse(server, client, claims.sub, response)) }
  if (!response.ok) throw new CallbackRouteError(`The userinfo endpoint answered ${response.status}.`)
  const body: unknown = await response.json()
  if (typeof body !== "object" || body === null) throw new CallbackRouteError("The userinfo endpoint answered no JSON object.")
  return { ...body }
}

/**
 * A stable user id without an adapter: derived from provider and account id, UUID-shaped.
 * @example stableUserId("email-code", "ada@example.com") // the same id at every sign-in
 */
export function stableUserId(provider: string, providerAccountId: string): string {
  const hex = createHash("sha256").update(`${provider}\u0000${providerAccountId}`).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id
  if (id === undefined || id === null) throw new TypeError("The profile has neither `sub` nor `id`.")
  return {
    id: String(id),
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
    email: profile.email ?? null,
    image: typeof profile.picture === "string" ? profile.picture : null,
  }
}

async function identityOf(provider: OAuthConfig, profile: Profile, tokens: TokenSet): Promise<Identity> {
  let mapped: User
  try {
    mapped = await (provider.profile ?? defaultProfile)(profile, tokens)
  } catch (err) {
    throw new OAuthProfileParseError(`The profile of "${provider.id}" could not be mapped.`, { err })
  }
  if (mapped.id === undefined || mapped.id === null) throw new OAuthProfileParseError("profile() returned no id.")
  const providerAccountId = String(mapped.id)
  const stored =
    provider.account?.(tokens) ?? Object.fromEntries(STORED_TOKEN_FIELDS.filter((k) => tokens[k] !== undefined).map((k) => [k, tokens[k]]))
  return {
    user: { ...mapped, id: stableUserId(provider.id, providerAccountId), email: mapped.email?.toLowerCase() ?? null },
    account: { ...stored, provider: provider.id, type: provider.type, providerAccountId },
    profile,
  }
}

function callbackParams(input: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(input)) if (typeof value === "string") params.set(key, value)
  return params
}

export const finishAuthorization = effect<Identity, { params: Record<string, unknown>; pending: OAuthPending | null }>(
  async (ctx, input) => {
    const cache = discoveryCache(ctx.config)
    const provider = providerOf(ctx)
    const { pending } = input
    if (!pending) throw new FlowStateError("No OAuth sign-in is pending.")
    const params = callbackParams(input.params)
    const error = params.get("error")
    if (error) {
      throw new OAuthCallbackError("The provider returned an error.", {
        provider: provider.id,
        error,
        error_description: params.get("error_description") ?? undefined,
      })
    }
    const state = params.get("state")
    if (!state || !equal(state, pending.state)) throw new InvalidCheck("The state does not match this sign-in.")
    try {
      const server = await authorizationServer(provider, cache, ctx.now)
      if (server.issuer !== pending.issuer) throw new InvalidCheck("The provider's issuer changed during sign-in.")
      if (!provider.issuer) params.delete("iss")
      const { client } = clientOf(provider)
      const callback = o.validateAuthResponse(server, client, params, pending.state)
      if (!server.token_endpoint) throw new CallbackRouteError(`The provider "${provider.id}" has no token endpoint.`)
      const { redirectUri, codeVerifier, nonce } = pending
      const { tokens, claims } = await redeemCode({ provider, server, callback, redirectUri, codeVerifier, nonce })
      const tokenSet: TokenSet = { ...tokens }
      if (typeof tokens.expires_in === "number") tokenSet.expires_at = Math.floor(ctx.now / 1000) + tokens.expires_in
      const profile = await readProfile(provider, server, tokens, claims)
      const appleUser = input.params.user
      if (typeof appleUser === "string") {
        try {
          profile.user = JSON.parse(appleUser)
        } catch {
          // not JSON: ignore the optional user hint
        }
      }
      const identity = await identityOf(provider, profile, tokenSet)
      // the provider's session, for back-channel logout by `sid` (Back-Channel Logout 1.0 §2.4)
      const sid = claims?.sid
      return typeof sid === "string" && sid !== "" ? { ...identity, sid } : identity
    } catch (err) {
      throw asAuthError(err, provider.id)
    }
  },
)
