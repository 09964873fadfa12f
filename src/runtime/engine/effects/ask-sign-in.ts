/**
 * The `signIn` callback as a flow asks it: the sign-in tail's gate, and flows that ask before they act.
 */
import { AccessDenied, AuthError } from "../../../errors.js"
import type { GateResult } from "../../../machines/types.js"
import type { SignInAttempt } from "../../../types/flow.js"
import type { RequestContext } from "../../http/context.js"
import { redirectTo } from "../../http/callback-url.js"

/**
 * Runs the `signIn` callback: true goes on; false or a throw is AccessDenied (an AuthError is kept);
 * a string is a redirect, through the `redirect` callback. For flows that ask before they act (the
 * email flows ask before sending).
 *
 * @example
 * ```ts
 * const verdict = await services.askSignIn({ user: { email }, account: null, email: { verificationRequest: true } })
 * if (!verdict.allow) return { redirect: verdict.redirect }
 * ```
 */
export async function askSignIn(ctx: RequestContext, params: SignInAttempt): Promise<GateResult> {
  let verdict: boolean | string
  try {
    verdict = await ctx.config.callbacks.signIn(params)
  } catch (err) {
    throw err instanceof AuthError ? err : new AccessDenied("The signIn callback threw.", { err })
  }
  if (typeof verdict === "string") return { allow: false, redirect: await redirectTo(ctx, verdict) }
  if (!verdict) throw new AccessDenied("The signIn callback refused the sign-in.")
  return { allow: true }
}
