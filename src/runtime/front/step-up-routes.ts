/**
 * The step-up requests, one row each in the routing table: `GET <basePath>/reauth` starts a
 * re-authentication (its page), `POST <basePath>/reauth` (CSRF) answers it. They run the config's
 * step-up flow (`config.flows` may replace the built-in one) through the engine like every flow, with
 * the flow state in its own cookie (`<flow cookie>.reauth`).
 */
import type { Handled, RequestContext } from "../http/context.js"
import type { Route } from "../../types/route.js"
import { runFlow } from "../engine/engine.js"
import { STEP_UP_ACTION, STEP_UP_FLOW, defaultStepUpFlow } from "../engine/step-up.js"

/** The request as the step-up flow runs it: named like a provider (`reauth`), for its flow cookie and state. */
function stepUpContext(ctx: RequestContext): RequestContext {
  return {
    config: ctx.config,
    req: ctx.req,
    action: ctx.action,
    providerId: STEP_UP_ACTION,
    provider: undefined,
    origin: ctx.origin,
    basePath: ctx.basePath,
    authUrl: ctx.authUrl,
    secure: ctx.secure,
    cookies: ctx.cookies,
    now: ctx.now,
  }
}

function runStepUp(method: "GET" | "POST") {
  return (ctx: RequestContext): Promise<Handled> => {
    const flow = ctx.config.flows.get(STEP_UP_FLOW) ?? defaultStepUpFlow
    const route = flow.routes.find((r) => r.method === method && r.action === STEP_UP_ACTION)
    if (!route) throw new TypeError(`The step-up flow has no ${method} ${STEP_UP_ACTION} route.`)
    return runFlow(stepUpContext(ctx), flow, route)
  }
}

/** `GET|POST <basePath>/reauth`. */
export const stepUpRoutes: readonly Route[] = [
  { method: "GET", action: STEP_UP_ACTION, provider: false, handle: runStepUp("GET") },
  { method: "POST", action: STEP_UP_ACTION, provider: false, csrf: true, handle: runStepUp("POST") },
]
