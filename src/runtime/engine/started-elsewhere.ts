/**
 * A sign-in started under Auth.js before the switch and finished here: the provider's callback arrives
 * with Auth.js' in-flight cookies (`state`, `pkce.code_verifier`, `nonce`) and none of authchart's flow
 * state. Auth.js sealed those for its own check, so the sign-in cannot be finished; it ends on the
 * sign-in page asking to start again (`FlowStartedElsewhere`) instead of an unexplained `FlowStateError`.
 */
import { type AuthError, FlowStartedElsewhere, FlowStateError } from "../../errors.js"
import type { RequestContext } from "../http/context.js"

/** `error`, or `FlowStartedElsewhere` when a callback without our flow state carries Auth.js' in-flight cookies. */
export function startedElsewhere(ctx: RequestContext, error: AuthError, hasOurState: boolean): AuthError {
  if (!(error instanceof FlowStateError) || hasOurState || ctx.action !== "callback") return error
  const { state, pkceCodeVerifier, nonce } = ctx.cookies
  const authjs = [state, pkceCodeVerifier, nonce].some(({ name }) => ctx.req.cookies[name] !== undefined)
  return authjs ? new FlowStartedElsewhere("The callback carries a sign-in started by Auth.js, before the switch.", { err: error }) : error
}
