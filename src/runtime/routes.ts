/**
 * The route table: every endpoint is one row. Provider routes (`signin/:id`, `callback/:id`,
 * `webauthn-options/:id`) are dispatched to the provider's flow, whose own rows say which requests
 * start or resume it; adding a flow adds rows, not branches here.
 */
import { InvalidProvider, MissingCSRF, UnknownAction } from "../errors.js"
import { errorPage, providerUrls, signInPage, signOutPage, verifyRequestPage } from "./actions/pages.js"
import { webauthnScript } from "./actions/webauthn-script.js"
import { resolveCallbackUrl } from "./callback-url.js"
import { type Handled, type RequestContext, param } from "./context.js"
import { csrfState } from "./csrf.js"
import { runFlow } from "./engine.js"
import { defaultFlowFor } from "./flows.js"
import { type AuthAction, isAuthAction } from "./env.js"
import type { FlowRoute } from "./flow.js"
import { NO_CACHE, errorResponse, json, redirect } from "./respond.js"
import { sessionStrategy } from "./session.js"
import { signOutEverywhere, wantsEverywhere } from "./sign-out-everywhere.js"
import { clearCookie } from "./cookies.js"
import { rateLimitGate } from "./rate-limit.js"
import { backchannelLogout } from "./logout/backchannel.js"
import { providerLogoutOf, providerLogoutUrl, signOutCallback } from "./logout/rp-initiated.js"
import { accountRoutes } from "./account-routes.js"

/**
 * A row of the route table. Besides the nine Auth.js actions, authchart serves a few of its own
 * (`EXTRA_ACTIONS`), and an app may add rows through `config.routes` (e.g. the inspector page).
 */
export interface Route {
  readonly method: "GET" | "POST"
  readonly action: AuthAction | (string & {})
  /** Whether the path carries a provider id. */
  readonly provider: boolean
  /** Double-submit CSRF check before the handler runs. */
  readonly csrf?: boolean
  readonly handle: (ctx: RequestContext) => Promise<Handled>
}

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
  return { response: { ...json({ csrfToken: state.token }, 200, NO_CACHE), cookies: state.cookie ? [state.cookie] : [] } }
}

async function session(ctx: RequestContext): Promise<Handled> {
  const read = await sessionStrategy(ctx).read(ctx)
  return { response: { ...json(read.body, 200, NO_CACHE), cookies: [...read.cookies] } }
}

async function updateSession(ctx: RequestContext): Promise<Handled> {
  const read = await sessionStrategy(ctx).read(ctx, { data: ctx.req.body?.data })
  return { response: { ...json(read.body), cookies: [...read.cookies] } }
}

async function toSignInPage(ctx: RequestContext): Promise<Handled> {
  return { response: redirect(`${ctx.authUrl}/signin`) }
}

async function signOut(ctx: RequestContext): Promise<Handled> {
  const callback = await resolveCallbackUrl(ctx)
  const atProvider = await providerLogoutOf(ctx)
  if (wantsEverywhere(ctx)) await signOutEverywhere(ctx)
  const cookies = await sessionStrategy(ctx).destroy(ctx)
  const target = atProvider && (await providerLogoutUrl(ctx, atProvider, callback.url))
  return { response: redirect(target || callback.url, cookies) }
}

function matches(row: FlowRoute, ctx: RequestContext): boolean {
  return row.method === ctx.req.method && row.action === ctx.action && row.step === param(ctx.req, "step")
}

/** Sends a provider route to the provider's flow, per the flow's own route rows. */
async function dispatchToFlow(ctx: RequestContext): Promise<Handled> {
  const provider = ctx.provider
  if (!provider) throw new InvalidProvider(`Unknown provider "${ctx.providerId}".`)
  const flowId = ((provider.config as { flow?: unknown }).flow as string | undefined) ?? defaultFlowFor[provider.type] ?? provider.type
  const flow = ctx.config.flows.get(flowId)
  const row = flow?.routes.find((r) => matches(r, ctx))
  if (!flow || !row) {
    // Auth.js: POST /signin/<credentials|webauthn> shows the sign-in page; anything else is misuse.
    if (ctx.action === "signin" && (provider.type === "credentials" || provider.type === "webauthn")) {
      return toSignInPage(ctx)
    }
    throw new InvalidProvider(`Provider "${provider.id}" (${provider.type}) does not handle ${ctx.req.method} ${ctx.action}.`)
  }
  if (row.csrf) {
    const failure = csrfFailure(ctx)
    if (failure) return failure
  }
  return runFlow(ctx, flow, row)
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
  { method: "POST", action: "signin", provider: false, csrf: true, handle: toSignInPage },
  { method: "POST", action: "signin", provider: true, csrf: true, handle: dispatchToFlow },
  { method: "GET", action: "callback", provider: true, handle: dispatchToFlow },
  { method: "POST", action: "callback", provider: true, handle: dispatchToFlow },
  { method: "GET", action: "signout", provider: false, handle: signOutPage },
  { method: "POST", action: "signout", provider: false, csrf: true, handle: signOut },
  { method: "GET", action: "verify-request", provider: false, handle: verifyRequestPage },
  { method: "GET", action: "error", provider: false, handle: errorPage },
  { method: "GET", action: "webauthn-options", provider: true, handle: dispatchToFlow },
  { method: "GET", action: "webauthn-script", provider: false, handle: webauthnScript },
  { method: "GET", action: "signout-callback", provider: false, handle: signOutCallback },
  { method: "POST", action: "backchannel-logout", provider: true, handle: backchannelLogout },
  ...accountRoutes,
]

/** Actions authchart serves besides Auth.js' nine (`config.routes` may add more). */
export const EXTRA_ACTIONS: ReadonlySet<string> = new Set(routes.map((r) => r.action).filter((a) => !isAuthAction(a)))

/** Actions whose path may carry a provider id (`<action>/<provider>`). */
export const PROVIDER_ACTIONS: ReadonlySet<string> = new Set(routes.filter((r) => r.provider).map((r) => r.action))

/** Runs the row for a request; a valid action with no row is `UnknownAction` (→ error page). */
export async function route(ctx: RequestContext): Promise<Handled> {
  const hasProvider = ctx.providerId !== undefined
  const matches = (r: Route) => r.method === ctx.req.method && r.action === ctx.action && r.provider === hasProvider
  const row = routes.find(matches) ?? ctx.config.routes.find(matches)
  const gate = await rateLimitGate(ctx)
  if (gate.refused) return gate.refused
  let handled: Handled
  try {
    if (!row) throw new UnknownAction(`Cannot handle action: ${ctx.action}`)
    handled = (row.csrf && csrfFailure(ctx)) || (await row.handle(ctx))
  } catch (err) {
    handled = errorResponse(ctx, err)
  }
  await gate.settle(handled)
  return handled
}
