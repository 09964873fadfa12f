/**
 * Logout at the test IdP: the end-session endpoint of RP-Initiated Logout 1.0 (§2–3: the `id_token_hint`
 * must be one of ours for this client, the `post_logout_redirect_uri` registered, `state` sent back), and
 * back-channel logout tokens (Back-Channel Logout 1.0 §2.4) signed with the IdP's key, so an app's tests
 * can drive its receiver the way a provider does.
 */
import { randomUUID } from "node:crypto"
import type { ServerResponse } from "node:http"
import { type CryptoKey, SignJWT, type KeyObject, jwtVerify } from "jose"
import { send } from "./idp-http.js"

/** The `events` member of a logout token. */
const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"

type SigningKey = CryptoKey | KeyObject

/** What the IdP's logout needs to know about the IdP. */
export interface IdpLogoutContext {
  readonly issuer: string
  readonly clientId: string
  readonly kid: string
  readonly privateKey: SigningKey
  readonly publicKey: SigningKey
  /** Registered post-logout URIs; undefined: any http(s) URL. */
  readonly postLogoutRedirectUris: readonly string[] | undefined
}

/** Who asked to be logged out: the `sub` of each valid `id_token_hint`, in order. */
export type LogoutLog = string[]

async function hintSubject(context: IdpLogoutContext, hint: string): Promise<string | undefined> {
  try {
    // an expired hint is still a hint: the person may have been signed in for long
    const { payload } = await jwtVerify(hint, context.publicKey, {
      issuer: context.issuer,
      audience: context.clientId,
      clockTolerance: Number.MAX_SAFE_INTEGER,
    })
    return payload.sub
  } catch {
    return undefined
  }
}

/**
 * `GET /logout`: with a valid `id_token_hint`, notes its `sub` in `log` and sends the browser to the
 * registered `post_logout_redirect_uri` (with `state`), else answers with a page. A bad hint, another
 * client's `client_id` or an unregistered URI is a 400 page, never a redirect.
 */
export async function endSession(context: IdpLogoutContext, url: URL, res: ServerResponse, log: LogoutLog): Promise<void> {
  const q = url.searchParams
  const hint = q.get("id_token_hint")
  const sub = hint ? await hintSubject(context, hint) : undefined
  if (hint && !sub) return send(res, 400, "id_token_hint is not an ID token of this IdP for this client.")
  const clientId = q.get("client_id")
  if (clientId !== null && clientId !== context.clientId) return send(res, 400, "Unknown client_id.")
  const back = q.get("post_logout_redirect_uri")
  if (sub) log.push(sub)
  if (back === null) return send(res, 200, "Signed out of the test IdP.")
  const registered = context.postLogoutRedirectUris ? context.postLogoutRedirectUris.includes(back) : /^https?:\/\//.test(back)
  if (!registered || (!sub && clientId === null)) return send(res, 400, "post_logout_redirect_uri is not registered.")
  const target = new URL(back)
  const state = q.get("state")
  if (state !== null) target.searchParams.set("state", state)
  res.writeHead(303, { location: target.href, "cache-control": "no-store" }).end()
}

/** The claims of a logout token, any of which a test may replace (or drop with `undefined`). */
export type LogoutTokenClaims = Record<string, unknown>

/** A logout token for `sub`, signed like the IdP's ID tokens; `claims` override or (undefined) drop claims. */
export async function logoutToken(context: IdpLogoutContext, sub: string, claims: LogoutTokenClaims = {}): Promise<string> {
  const all: Record<string, unknown> = {
    iss: context.issuer,
    aud: context.clientId,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    sub,
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...claims,
  }
  const payload = Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined))
  return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: context.kid, typ: "logout+jwt" }).sign(context.privateKey)
}

/** Posts a logout token for `sub` to an app's back-channel logout URI, as a provider does; its status. */
export async function postLogoutToken(context: IdpLogoutContext, uri: string, sub: string): Promise<number> {
  const response = await fetch(uri, {
    method: "POST",
    body: new URLSearchParams({ logout_token: await logoutToken(context, sub) }),
    redirect: "manual",
    signal: AbortSignal.timeout(5_000),
  })
  await response.body?.cancel()
  return response.status
}
