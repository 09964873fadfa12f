/**
 * The OAuth / OIDC flow's two effects, each "do the I/O, then validate" with oauth4webapi:
 * `startAuthorization` builds the authorization URL and its checks (PKCE S256 + state always, nonce for
 * OIDC); `finishAuthorization` validates the callback (state, RFC 9207 `iss`), redeems the code, checks
 * the ID token (nonce, iss, aud), and hands the tokens to oauth-profile.ts, which reads and maps the profile.
 */
import * as o from "oauth4webapi"
import { AuthError, CallbackRouteError, FlowStateError, InvalidCheck, OAuthCallbackError, OAuthSignInError } from "../../../errors.js"
import type { Identity } from "../../../flow/index.js"
import type { AuthorizationStart, OAuthPending } from "../../../machines/oauth.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { TokenSet } from "../../../types.js"
import type { FlowServices } from "../../../types/flow.js"
import { authorizationUrl } from "./oauth-authorize.js"
import { type DiscoveryCache, authorizationServer, clientOf, discoveryCache, knownServer } from "../../oauth/server.js"
import { identityOf, readProfile } from "./oauth-profile.js"
import { effect } from "./effect.js"
import { asAuthError, redeemCode } from "./oauth-token.js"
import { proxyOf, sealProxyState } from "./redirect-proxy.js"
import { providerConfig } from "../provider-config.js"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

function providerOf(services: FlowServices): OAuthConfig {
  const config = services.provider?.config
  // the common case checked in place; anything else gets providerConfig's refusal
  return config?.type === "oidc" || config?.type === "oauth" ? config : providerConfig(services, "oauth", "oidc")
}

/** Whether two texts are equal, compared in constant time (their length is not secret). */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The exact redirect URI registered with the provider: ours, or the redirect proxy's. */
export function redirectUriOf(services: FlowServices, provider: OAuthConfig): string {
  return redirectUriFor(services, provider, ownCallbackOf(services, provider))
}

/** Our own callback URL for the provider. */
function ownCallbackOf(services: FlowServices, provider: OAuthConfig): string {
  return `${services.authUrl}/callback/${encodeURIComponent(provider.id)}`
}

function redirectUriFor(services: FlowServices, provider: OAuthConfig, ownCallback: string): string {
  const proxy = proxyOf(services, provider)
  return proxy && proxy.origin !== services.origin
    ? `${proxy.href.replace(/\/+$/, "")}/callback/${encodeURIComponent(provider.id)}`
    : ownCallback
}

/** Whether the sign-in sends and checks a `nonce` (OIDC, unless the provider's `checks` leave it out). */
function usesNonce(provider: OAuthConfig): boolean {
  const checks = provider.checks
  return provider.type === "oidc" && (checks === undefined || checks.includes("nonce"))
}

/** The `index`th 32 bytes of `random`, base64url (43 characters): a state, PKCE code verifier or nonce, as oauth4webapi makes them. */
function randomToken(random: Buffer, index: number): string {
  return random.subarray(index * 32, index * 32 + 32).toString("base64url")
}

/** RFC 7636 §4.2 S256: BASE64URL(SHA256(ASCII(code_verifier))), synchronous (WebCrypto's digest is a job of its own). */
export function pkceChallenge(codeVerifier: string): string {
  // a code verifier is ASCII (RFC 7636 §4.1: unreserved characters), so its UTF-8 is its ASCII
  return createHash("sha256").update(codeVerifier).digest("base64url")
}

/** The server to start a sign-in with, described (discovery) when it is not known yet. */
async function describedServer(provider: OAuthConfig, cache: DiscoveryCache, now: number): Promise<o.AuthorizationServer> {
  try {
    return await authorizationServer(provider, cache, now)
  } catch (err) {
    if (err instanceof AuthError) throw err
    throw new OAuthSignInError(`The provider "${provider.id}" could not be reached or described.`, { err })
  }
}

async function authorizationStart(
  services: FlowServices,
  input: { params: Record<string, unknown> },
  provider: OAuthConfig,
  server: o.AuthorizationServer,
) {
  const endpointUrl = server.authorization_endpoint
  if (!endpointUrl) throw new OAuthSignInError(`The provider "${provider.id}" has no authorization endpoint.`)
  const ownCallback = ownCallbackOf(services, provider)
  const redirectUri = redirectUriFor(services, provider, ownCallback)
  // one draw from the batched pool for state, code verifier and nonce, 32 bytes each
  const random = randomBytes(96)
  const state = redirectUri === ownCallback ? randomToken(random, 0) : await sealProxyState(services, ownCallback)
  const codeVerifier = randomToken(random, 1)
  const nonce = usesNonce(provider) ? randomToken(random, 2) : null
  const url = authorizationUrl(provider, server, endpointUrl, input.params, {
    redirectUri,
    state,
    codeChallenge: pkceChallenge(codeVerifier),
    nonce,
  })
  return { url, pending: { state, codeVerifier, nonce, redirectUri, issuer: server.issuer } }
}

/** Builds the authorization request: at once when the provider's server is known, after its discovery otherwise. */
export const startAuthorization = effect<AuthorizationStart, { params: Record<string, unknown> }>((services, input) => {
  const cache = discoveryCache(services)
  const provider = providerOf(services)
  const known = knownServer(provider, cache, services.now)
  if (known) return authorizationStart(services, input, provider, known)
  return describedServer(provider, cache, services.now).then((server) => authorizationStart(services, input, provider, server))
})

/** A callback parameter as a `URLSearchParams` of the callback's string values holds it: undefined when absent. */
function param(params: Record<string, unknown>, name: string): string | undefined {
  const value = Object.hasOwn(params, name) ? params[name] : undefined
  return typeof value === "string" ? value : undefined
}

/** The callback's string parameters, without `iss` when the provider names no issuer (as `o.validateAuthResponse` reads them). */
function callbackParams(input: Record<string, unknown>, provider: OAuthConfig): URLSearchParams {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(input)) if (typeof value === "string") params.set(key, value)
  if (!provider.issuer) params.delete("iss")
  return params
}

export const finishAuthorization = effect<Identity, { params: Record<string, unknown>; pending: OAuthPending | null }>(
  async (services, input) => {
    const cache = discoveryCache(services)
    const provider = providerOf(services)
    const { pending } = input
    if (!pending) throw new FlowStateError("No OAuth sign-in is pending.")
    const error = param(input.params, "error")
    if (error) {
      throw new OAuthCallbackError("The provider returned an error.", {
        provider: provider.id,
        error,
        error_description: param(input.params, "error_description"),
      })
    }
    const state = param(input.params, "state")
    if (!state || !sameText(state, pending.state)) throw new InvalidCheck("The state does not match this sign-in.")
    try {
      const server = knownServer(provider, cache, services.now) ?? (await authorizationServer(provider, cache, services.now))
      if (server.issuer !== pending.issuer) throw new InvalidCheck("The provider's issuer changed during sign-in.")
      const { client } = clientOf(provider)
      const callback = o.validateAuthResponse(server, client, callbackParams(input.params, provider), pending.state)
      if (!server.token_endpoint) throw new CallbackRouteError(`The provider "${provider.id}" has no token endpoint.`)
      const { redirectUri, codeVerifier, nonce } = pending
      const { tokens, claims } = await redeemCode({ provider, server, callback, redirectUri, codeVerifier, nonce })
      const tokenSet: TokenSet = { ...tokens }
      if (typeof tokens.expires_in === "number") tokenSet.expires_at = Math.floor(services.now / 1000) + tokens.expires_in
      const read = readProfile(provider, server, tokens, claims)
      const profile = read instanceof Promise ? await read : read
      const appleUser = input.params.user
      if (typeof appleUser === "string") {
        try {
          profile.user = JSON.parse(appleUser)
        } catch {
          // not JSON: ignore the optional user hint
        }
      }
      const mapped = identityOf(provider, profile, tokenSet)
      const identity = mapped instanceof Promise ? await mapped : mapped
      // the provider's session, for back-channel logout by `sid` (Back-Channel Logout 1.0 §2.4)
      const sid = claims?.sid
      return typeof sid === "string" && sid !== "" ? { ...identity, sid } : identity
    } catch (err) {
      throw asAuthError(err, provider.id)
    }
  },
)
