/**
 * Validating a back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.6) with jose:
 * the signature against the provider's JWKS (`jwks_uri` from discovery; the key set cached per config,
 * fetched with the provider's timeout, refetched at most every 30 s for an unknown `kid`), `iss` = the
 * discovered issuer, `aud` containing our `client_id`, `iat` within `logout.maxTokenAge`, the
 * back-channel `events` member, `sub` and/or `sid`, no `nonce`, and `jti` used once (server-state port).
 */
import type { JWTPayload } from "jose"
import { createRemoteJWKSet } from "jose/jwks/remote"
import { jwtVerify } from "jose/jwt/verify"
import { BackchannelLogoutError } from "../../../errors.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { RequestContext } from "../../http/context.js"
import { DEFAULT_TIMEOUT_MS } from "../../oauth/server.js"
import { CLOCK_TOLERANCE } from "../../crypto/sealed.js"
import { stateKey } from "../../limits/server-state.js"
import { discoveredIssuer, discoveredUrl } from "./metadata.js"

/** The `events` member that makes a JWT a logout token (§2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"

/** What a valid logout token says: whose sessions end. At least one of `sub` and `sid` is set. */
export interface LogoutClaims {
  readonly issuer: string
  readonly sub: string | undefined
  readonly sid: string | undefined
  /** The server-state key that made its `jti` single use (released if ending the sessions fails). */
  readonly jtiKey: string
}

type KeySet = ReturnType<typeof createRemoteJWKSet>
const keySets = new WeakMap<object, Map<string, KeySet>>()

function keySetOf(ctx: RequestContext, provider: OAuthConfig, uri: URL): KeySet {
  let sets = keySets.get(ctx.config)
  if (!sets) keySets.set(ctx.config, (sets = new Map()))
  let set = sets.get(uri.href)
  if (!set) {
    set = createRemoteJWKSet(uri, { timeoutDuration: provider.timeout ?? DEFAULT_TIMEOUT_MS, cooldownDuration: 30_000 })
    sets.set(uri.href, set)
  }
  return set
}

const refuse = (reason: string, err?: unknown): BackchannelLogoutError =>
  new BackchannelLogoutError(`The logout token was refused: ${reason}.`, err === undefined ? undefined : { err })

const nonEmpty = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** The claims §2.6 steps 4 to 7 ask for beyond what jose checked. Throws when one is missing. */
function logoutClaimsOf(payload: JWTPayload): { sub: string | undefined; sid: string | undefined; jti: string } {
  const events = payload.events
  const event = typeof events === "object" && events !== null ? (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT] : undefined
  if (typeof event !== "object" || event === null || Array.isArray(event)) throw refuse("no back-channel logout event")
  if (payload.nonce !== undefined) throw refuse("it carries a nonce")
  const sub = nonEmpty(payload.sub)
  const sid = nonEmpty(payload.sid)
  if (!sub && !sid) throw refuse("it names neither sub nor sid")
  const jti = nonEmpty(payload.jti)
  if (!jti) throw refuse("it has no jti")
  return { sub, sid, jti }
}

/** Verifies a logout token from `provider`; throws `BackchannelLogoutError` on any failure. */
export async function verifyLogoutToken(ctx: RequestContext, provider: OAuthConfig, token: string): Promise<LogoutClaims> {
  let issuer: string
  let jwksUri: URL | undefined
  try {
    issuer = await discoveredIssuer(ctx, provider)
    jwksUri = await discoveredUrl(ctx, provider, "jwks_uri")
  } catch (err) {
    throw refuse("the provider's metadata could not be read", err)
  }
  if (!jwksUri) throw refuse("the provider publishes no jwks_uri")
  const maxAgeS = Math.floor(ctx.config.logout.maxTokenAgeMs / 1000)
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(token, keySetOf(ctx, provider, jwksUri), {
      issuer,
      audience: provider.clientId ?? "",
      maxTokenAge: maxAgeS,
      clockTolerance: CLOCK_TOLERANCE,
      currentDate: new Date(ctx.now),
      requiredClaims: ["iat", "jti", "events"],
    }))
  } catch (err) {
    throw refuse("its signature or claims did not verify", err)
  }
  const { sub, sid, jti } = logoutClaimsOf(payload)
  const jtiKey = stateKey("logout-jti", jti, issuer)
  if (!(await ctx.config.serverState.claim(jtiKey, (maxAgeS + 2 * CLOCK_TOLERANCE) * 1000))) throw refuse("its jti was used before")
  return { issuer, sub, sid, jtiKey }
}
