/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): `POST /signout` with `provider=<id>`
 * (or `logout.provider`) ends the local session as usual and then sends the browser to the provider's
 * `end_session_endpoint` with `id_token_hint`, the configured `post_logout_redirect_uri` and a `state`.
 * The state is sealed with the secret (it carries the callback URL) and used once (server-state port);
 * the provider sends the browser back to `GET /signout-callback?state=…`, which lands on the callback URL.
 *
 * Without an `end_session_endpoint`, without a kept ID token, or for a provider that is not OIDC the
 * sign-out stays local (logged at debug level); Auth.js' plain `POST /signout` is unchanged.
 */
import { randomBytes } from "../../crypto/random.js"
import { InvalidCheck, SignOutError } from "../../../errors.js"
import { redirectTo } from "../../http/callback-url.js"
import type { ResolvedProvider } from "../../../types/resolved.js"
import type { Handled, RequestContext } from "../../http/context.js"
import { readChunked } from "../../http/cookies.js"
import { CLOCK_TOLERANCE, decryptJwt, encryptJwt, newestSecret } from "../../crypto/sealed.js"
import { pageUrl, redirect } from "../../http/respond.js"
import { stateKey } from "../../limits/server-state.js"
import { decodeSessionToken } from "../session.js"
import { type IdTokenOf, accountIdTokens } from "./accounts.js"
import { keptIdToken } from "./id-token.js"
import { discoveredUrl } from "./metadata.js"

const STATE_SALT = "authchart.logout-state"
const STATE_TTL_S = 600

/** What a sign-out at the provider needs, read before the local session ends. */
export interface ProviderLogout {
  readonly provider: Extract<ResolvedProvider, { type: "oidc" }>
  readonly idToken: string
}

/** The OIDC provider this sign-out logs out at: the body's `provider`, else `logout.provider`. */
function logoutProvider(ctx: RequestContext): ProviderLogout["provider"] | undefined {
  const named = ctx.req.body?.provider
  const id = typeof named === "string" && named !== "" ? named : ctx.config.logout.provider
  if (id === undefined) return undefined
  const provider = ctx.config.providers.get(id)
  if (provider?.type === "oidc") return provider
  ctx.config.logger.debug("logout-local-only", { provider: id, reason: "not an OIDC provider" })
  return undefined
}

/** The ID tokens of the signed-in session, by provider: kept in the JWT, or on the account row; one session read. */
async function sessionIdTokens(ctx: RequestContext): Promise<IdTokenOf> {
  const { name } = ctx.cookies.sessionToken
  const raw = readChunked(ctx.req.cookies, name)
  if (!raw) return async () => undefined
  if (ctx.config.session.strategy === "database") return accountIdTokens(ctx, raw)
  const kept = keptIdToken((await decodeSessionToken(ctx, raw, name))?.payload)
  return async (providerId) => (kept?.provider === providerId ? kept.token : undefined)
}

/** The ID token of the signed-in session for `providerId`. */
async function sessionIdToken(ctx: RequestContext, providerId: string): Promise<string | undefined> {
  return (await sessionIdTokens(ctx))(providerId)
}

/**
 * Whether this sign-out also logs out at a provider, and with which ID token. Call before the session
 * is destroyed. Never throws: any failure means a local sign-out (logged).
 */
export async function providerLogoutOf(ctx: RequestContext): Promise<ProviderLogout | undefined> {
  const provider = logoutProvider(ctx)
  if (!provider) return undefined
  try {
    const idToken = await sessionIdToken(ctx, provider.id)
    if (idToken) return { provider, idToken }
    ctx.config.logger.debug("logout-local-only", { provider: provider.id, reason: "no ID token kept for this session" })
  } catch (err) {
    ctx.config.logger.error(new SignOutError("The ID token for logout at the provider could not be read.", { err }))
  }
  return undefined
}

/** A provider the session can also be logged out at, and the origin of its end-session endpoint. */
export interface LogoutChoice {
  readonly id: string
  readonly name: string
  /** Where the sign-out form's redirect leads (the page's CSP `form-action` must allow it). */
  readonly origin: string
}

/**
 * The OIDC providers the signed-in session could also be logged out at, offered on the built-in sign-out
 * page with `logout.offerOnSignOutPage`: those with an `end_session_endpoint` (discovery, cached) whose
 * ID token the session holds. The session is read once, whatever the number of providers; without the
 * option it is not read at all (Auth.js' page reads no session).
 */
export async function logoutChoices(ctx: RequestContext): Promise<LogoutChoice[]> {
  if (!ctx.config.logout.offerOnSignOutPage) return []
  const choices: LogoutChoice[] = []
  const idTokenOf = await sessionIdTokens(ctx).catch(() => undefined)
  if (!idTokenOf) return choices
  for (const provider of ctx.config.providers.values()) {
    if (provider.type !== "oidc" || !(await idTokenOf(provider.id).catch(() => undefined))) continue
    const endSession = await discoveredUrl(ctx, provider.config, "end_session_endpoint").catch(() => undefined)
    if (endSession) choices.push({ id: provider.id, name: provider.name, origin: endSession.origin })
  }
  return choices
}

/**
 * The origin a plain "Sign out" may be redirected to: `logout.provider`'s end-session endpoint (the
 * sign-out page's CSP `form-action` must allow it). No session read: discovery only, cached.
 */
export async function defaultLogoutOrigin(ctx: RequestContext): Promise<string | undefined> {
  const id = ctx.config.logout.provider
  const provider = id === undefined ? undefined : ctx.config.providers.get(id)
  if (provider?.type !== "oidc") return undefined
  return (await discoveredUrl(ctx, provider.config, "end_session_endpoint").catch(() => undefined))?.origin
}

/** The exact `post_logout_redirect_uri`: configured, else `<authUrl>/signout-callback`. */
export function postLogoutRedirectUri(ctx: RequestContext): string {
  return ctx.config.logout.postLogoutRedirectUri ?? `${ctx.authUrl}/signout-callback`
}

function sealState(ctx: RequestContext, providerId: string, callbackUrl: string): Promise<string> {
  const iat = Math.floor(ctx.now / 1000)
  const claims = { cb: callbackUrl, p: providerId, jti: randomBytes(16).toString("base64url"), iat, exp: iat + STATE_TTL_S }
  return encryptJwt(claims, newestSecret(ctx.config), STATE_SALT)
}

/**
 * Where the browser goes after the local sign-out: the provider's end-session URL (RP-Initiated Logout
 * 1.0 §2) carrying `id_token_hint`, `post_logout_redirect_uri`, `client_id` and a sealed single-use
 * `state`; undefined when the provider has no end-session endpoint or could not be asked (then the
 * sign-out stays local, logged).
 */
export async function providerLogoutUrl(ctx: RequestContext, logout: ProviderLogout, callbackUrl: string): Promise<string | undefined> {
  const provider = logout.provider.config
  let url: URL | undefined
  try {
    url = await discoveredUrl(ctx, provider, "end_session_endpoint")
  } catch (err) {
    ctx.config.logger.error(new SignOutError(`Logout at "${provider.id}" was skipped: its metadata could not be read.`, { err }))
    return undefined
  }
  if (!url) {
    ctx.config.logger.debug("logout-local-only", { provider: provider.id, reason: "no end_session_endpoint" })
    return undefined
  }
  url.searchParams.set("id_token_hint", logout.idToken)
  url.searchParams.set("post_logout_redirect_uri", postLogoutRedirectUri(ctx))
  url.searchParams.set("client_id", provider.clientId ?? "")
  url.searchParams.set("state", await sealState(ctx, provider.id, callbackUrl))
  ctx.config.logger.debug("logout-at-provider", { provider: provider.id })
  return url.href
}

/** Opens a returned `state`: sealed by us (with any of the secrets), not expired, used for the first time. */
async function openState(ctx: RequestContext, state: string | null): Promise<string> {
  if (!state) throw new InvalidCheck("The logout return carries no state.")
  let payload: Record<string, unknown>
  try {
    payload = await decryptJwt(state, ctx.config.secrets, STATE_SALT)
  } catch (err) {
    throw new InvalidCheck("The logout state could not be opened.", { err })
  }
  // decryptJwt refused an expired state already
  const { cb, jti } = payload
  if (typeof cb !== "string" || typeof jti !== "string") throw new InvalidCheck("The logout state is malformed.")
  if (!(await ctx.config.serverState.claim(stateKey("logout-state", jti), (STATE_TTL_S + CLOCK_TOLERANCE) * 1000))) {
    throw new InvalidCheck("The logout state was already used.")
  }
  return cb
}

/**
 * `GET /signout-callback`: the provider's return after logout; lands on the callback URL. A missing,
 * forged, expired or replayed `state` ends on the error page with `error=InvalidCheck` (logged), as the
 * sessions guide states: a failed check, not a server problem.
 */
export async function signOutCallback(ctx: RequestContext): Promise<Handled> {
  let callbackUrl: string
  try {
    callbackUrl = await openState(ctx, ctx.req.url.searchParams.get("state"))
  } catch (err) {
    if (!(err instanceof InvalidCheck)) throw err
    ctx.config.logger.error(err)
    const url = pageUrl(ctx, "error")
    url.searchParams.set("error", err.type)
    return { response: redirect(url.href), error: err }
  }
  return { response: redirect(await redirectTo(ctx, callbackUrl)) }
}
