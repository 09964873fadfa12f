/**
 * The runtime's own endpoints, one row each, and the dispatch of a request through the config's
 * routing table (`route-table.ts`), where the flows' rows join them per provider. Adding an endpoint
 * is one row here (or in `config.routes`); adding a flow adds rows to the flow, not here.
 */
import { MissingCSRF, UnknownAction } from "../../errors.js"
import { errorPage, providerUrls, signInPage, signOutPage, verifyRequestPage } from "./page-routes.js"
import { webauthnScript } from "./webauthn-script.js"
import { resolveCallbackUrl } from "../http/callback-url.js"
import type { Handled, RequestContext } from "../http/context.js"
import { csrfState } from "../http/csrf.js"
import { NO_CACHE, errorResponse, json, jsonWithCookies, redirect, showSignInPage } from "../http/respond.js"
import { notServed, type Route, unknownProvider } from "./route-table.js"
import { sessionStrategy } from "../sessions/session.js"
import { signOutEverywhere, wantsEverywhere } from "../sessions/sign-out-everywhere.js"
import { clearCookie } from "../http/cookies.js"
import { rateLimitGate } from "../limits/limiter.js"
import { backchannelLogout } from "../sessions/logout/backchannel.js"
import { providerLogoutOf, providerLogoutUrl, signOutCallback } from "../sessions/logout/rp-initiated.js"
import { accountRoutes } from "../sessions/account-routes.js"
import { factorRoutes } from "../factors/factor-routes.js"
import { stepUpRoutes } from "./step-up-routes.js"

export type { Route }

async function providers(ctx: RequestContext): Promise<Handled> {
  const body: Record<string, unknown> = {}
  for (const p of ctx.config.providers.values()) {
    body[p.id] = { id: p.id, name: p.name, type: p.type, ...providerUrls(ctx, p.id) }
  }
  return { response: json(body) }
}

async function csrf(ctx: RequestContext): Promise<Handled> {
  const { name, options } = ctx.cookies.csrfToken
  if (ctx.config.skipCSRFCheck) {
    return { response: { status: 404, cookies: [clearCookie(name, options)] } }
  }
  const state = csrfState(ctx)
  return { response: jsonWithCookies({ csrfToken: state.token }, state.cookie ? [state.cookie] : [], 200, NO_CACHE) }
}

async function session(ctx: RequestContext): Promise<Handled> {
  const read = await sessionStrategy(ctx).read(ctx)
  return { response: jsonWithCookies(read.body, [...read.cookies], 200, NO_CACHE) }
}

async function updateSession(ctx: RequestContext): Promise<Handled> {
  const read = await sessionStrategy(ctx).read(ctx, { data: ctx.req.body?.data })
  return { response: jsonWithCookies(read.body, [...read.cookies]) }
}

async function signOut(ctx: RequestContext): Promise<Handled> {
  const callback = await resolveCallbackUrl(ctx)
  const atProvider = await providerLogoutOf(ctx)
  if (wantsEverywhere(ctx)) await signOutEverywhere(ctx)
  const cookies = await sessionStrategy(ctx).destroy(ctx)
  const target = atProvider && (await providerLogoutUrl(ctx, atProvider, callback.url))
  return { response: redirect(target || callback.url, cookies) }
}

/** The MissingCSRF answer when a POST did not prove the token; it carries a fresh cookie if needed. */
function csrfFailure(ctx: RequestContext): Handled | undefined {
  const state = csrfState(ctx)
  if (state.verified) return undefined
  const error = new MissingCSRF(`CSRF token was missing during an action ${ctx.action}.`)
  return errorResponse(ctx, error, state.cookie ? [state.cookie] : [])
}

export const routes: readonly Route[] = [
  { method: "GET", action: "providers", provider: false, handle: providers },
  { method: "GET", action: "csrf", provider: false, handle: csrf },
  { method: "GET", action: "session", provider: false, handle: session },
  { method: "POST", action: "session", provider: false, csrf: true, handle: updateSession },
  { method: "GET", action: "signin", provider: false, handle: signInPage },
  { method: "POST", action: "signin", provider: false, csrf: true, handle: showSignInPage },
  // a provider's flow serves POST /signin/<id>; for a provider it does not know, CSRF still comes first
  { method: "POST", action: "signin", provider: true, csrf: true, handle: notServed },
  { method: "GET", action: "signout", provider: false, handle: signOutPage },
  { method: "POST", action: "signout", provider: false, csrf: true, handle: signOut },
  { method: "GET", action: "verify-request", provider: false, handle: verifyRequestPage },
  { method: "GET", action: "error", provider: false, handle: errorPage },
  { method: "GET", action: "webauthn-script", provider: false, handle: webauthnScript },
  { method: "GET", action: "signout-callback", provider: false, handle: signOutCallback },
  { method: "POST", action: "backchannel-logout", provider: true, handle: backchannelLogout },
  ...accountRoutes,
  ...factorRoutes,
  ...stepUpRoutes,
]

/** Runs the row for a request; a valid action with no row is `UnknownAction` (→ error page). */
export async function route(ctx: RequestContext): Promise<Handled> {
  const row = ctx.config.routing.find(ctx)
  const gate = await rateLimitGate(ctx)
  if (gate.refused) return gate.refused
  let handled: Handled
  try {
    if (!row)
      throw ctx.providerId !== undefined && !ctx.provider ? unknownProvider(ctx) : new UnknownAction(`Cannot handle action: ${ctx.action}`)
    handled = (row.csrf && csrfFailure(ctx)) || (await row.handle(ctx))
  } catch (err) {
    handled = errorResponse(ctx, err)
  }
  if (gate.settle) await gate.settle(handled)
  return handled
}
