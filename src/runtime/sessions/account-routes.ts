/**
 * The signed-in user's own sessions and accounts over HTTP (docs/sessions.md "Sessions and accounts the user can
 * manage"), one route row each:
 *
 * | request | answer |
 * |---|---|
 * | `GET <base>/sessions` | 200 `SessionInfo[]` (the asking one has `current: true`) |
 * | `POST <base>/revoke-session` (`id`) | 200 `{ revoked: true }`; 404 `SessionNotFound` |
 * | `POST <base>/revoke-other-sessions` | 200 `{ revoked: true }` and this browser's re-issued session cookie |
 * | `GET <base>/accounts` | 200 `LinkedAccount[]` |
 * | `POST <base>/unlink-account/<provider>` | 200 `{ unlinked: true }`; 404 `AccountNotFound`; 409 `LastSignInMethod` |
 *
 * Signed in only (401 JSON otherwise); POSTs need the CSRF token and count against the `accountClient`
 * rate limit. A POST that names a `callbackUrl` (an HTML form) is answered with a redirect there instead
 * of JSON, carrying `?error=<type>` when it was refused. A user only ever reaches their own sessions and
 * accounts: ids are looked up in the signed-in user's own index.
 */
import { AccountNotFound, type AuthError, LastSignInMethod, SessionNotFound } from "../../errors.js"
import { accountsOf, unlinkFor } from "./accounts.js"
import { redirectTo } from "../http/callback-url.js"
import { type Handled, type RequestContext, param } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import { NO_CACHE, jsonWithCookies, redirect } from "../http/respond.js"
import type { Route } from "../../types/route.js"
import { sessionStrategy } from "./session.js"
import { sessionId } from "./user-index.js"
import { revokeOthers, revokeSessionOf, sessionsOf } from "./user-sessions.js"
import { type SignedIn, signedIn } from "./signed-in.js"

const STATUS: Readonly<Partial<Record<string, number>>> = { SessionNotFound: 404, AccountNotFound: 404, LastSignInMethod: 409 }

/** The signed-in user, or the 401 answer (with the session read's clears). */
async function requireUser(ctx: RequestContext): Promise<SignedIn | Handled> {
  const who = await signedIn(ctx)
  if (who.userId !== undefined) return who as SignedIn
  return { response: jsonWithCookies({ error: "Unauthorized", message: "Sign in first." }, [...who.cookies], 401, NO_CACHE) }
}

/** A POST's answer: JSON, or a redirect to the form's `callbackUrl` (with `?error=` when refused). */
async function answer(ctx: RequestContext, body: unknown, cookies: readonly OutCookie[], error?: AuthError): Promise<Handled> {
  if (error) ctx.config.logger.error(error)
  const wanted = param(ctx.req, "callbackUrl")
  if (wanted !== undefined) {
    const url = new URL(await redirectTo(ctx, wanted))
    if (error) url.searchParams.set("error", error.type)
    return { response: redirect(url.href, cookies), ...(error ? { error } : {}) }
  }
  const status = error ? (STATUS[error.type] ?? 400) : 200
  const payload = error ? { error: error.type, message: error.message } : body
  return { response: jsonWithCookies(payload, [...cookies], status, NO_CACHE), ...(error ? { error } : {}) }
}

async function listSessionsRoute(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  return { response: jsonWithCookies(await sessionsOf(ctx, who), [...who.cookies], 200, NO_CACHE) }
}

async function revokeSessionRoute(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const id = param(ctx.req, "id") ?? ""
  const current = who.token ? sessionId(who.token) : "current"
  if (id === current) return answer(ctx, { revoked: true }, await sessionStrategy(ctx).destroy(ctx))
  if (id !== "" && (await revokeSessionOf(ctx.config, who.userId, id))) return answer(ctx, { revoked: true }, who.cookies)
  return answer(ctx, null, who.cookies, new SessionNotFound("The signed-in user has no session with this id."))
}

async function revokeOtherSessionsRoute(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  return answer(ctx, { revoked: true }, await revokeOthers(ctx, who))
}

async function listAccountsRoute(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const accounts = ctx.config.adapter ? await accountsOf(ctx.config, who.userId) : []
  return { response: jsonWithCookies(accounts, [...who.cookies], 200, NO_CACHE) }
}

async function unlinkAccountRoute(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  try {
    await unlinkFor(ctx.config, who.userId, ctx.providerId as string)
  } catch (err) {
    if (err instanceof AccountNotFound || err instanceof LastSignInMethod) return answer(ctx, null, who.cookies, err)
    throw err
  }
  return answer(ctx, { unlinked: true }, who.cookies)
}

/** The route rows of session and account management. */
export const accountRoutes: readonly Route[] = [
  { method: "GET", action: "sessions", provider: false, handle: listSessionsRoute },
  { method: "POST", action: "revoke-session", provider: false, csrf: true, handle: revokeSessionRoute },
  { method: "POST", action: "revoke-other-sessions", provider: false, csrf: true, handle: revokeOtherSessionsRoute },
  { method: "GET", action: "accounts", provider: false, handle: listAccountsRoute },
  { method: "POST", action: "unlink-account", provider: true, csrf: true, handle: unlinkAccountRoute },
]
