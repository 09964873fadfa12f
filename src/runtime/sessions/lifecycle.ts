/**
 * What a session's start and end mean beyond the session itself, for both strategies (named by their
 * reference, ./session-ref.ts):
 *
 * - issued by an OIDC sign-in whose ID token has `sid`: noted under that provider session, so a
 *   back-channel logout naming the `sid` ends this session (./logout/sid-sessions.ts);
 * - issued by an OAuth/OIDC sign-in with `session.providerTokens`: holds the user's token set with
 *   that provider; ended: lets go of it, and the last holder's end deletes it (./tokens/record.ts).
 *
 * Failures are logged and the sign-in or sign-out goes on (as the session index does).
 */
import { SessionTokenError, SignOutError } from "../../errors.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import type { RequestContext } from "../http/context.js"
import { rememberSidSession } from "./logout/sid-sessions.js"
import type { SignInSubject } from "./cookie.js"
import type { SessionExtras } from "./user-index.js"
import { holdProviderTokens, releaseProviderTokens, transferProviderTokens } from "./tokens/record.js"

/** Notes the session `ref` of `userId` that the sign-in `subject` just issued. Never throws. */
export async function sessionIssued(ctx: RequestContext, userId: string, ref: string, subject: SignInSubject): Promise<void> {
  const { account, sid } = subject
  // nothing to note for other sign-ins
  if (!account || (account.type !== "oauth" && account.type !== "oidc")) return
  // nor when neither a provider session (`sid`) nor provider tokens are kept
  if (!(sid && account.type === "oidc") && !ctx.config.providerTokens) return
  return noteIssued(ctx, userId, ref, account, sid)
}

async function noteIssued(
  ctx: RequestContext,
  userId: string,
  ref: string,
  account: NonNullable<SignInSubject["account"]>,
  sid: string | undefined,
): Promise<void> {
  try {
    if (sid && account.type === "oidc") await rememberSidSession(ctx.config, account.provider, sid, { userId, ref })
    await holdProviderTokens(ctx.config, userId, account.provider, ref, ctx.now)
  } catch (err) {
    ctx.config.logger.error(new SessionTokenError("The new session could not be noted for logout and provider tokens.", { err }))
  }
}

/** The session `ref` of `userId` ended: what it held is let go. Never throws. */
export async function sessionEnded(config: ResolvedConfig, userId: string, ref: string, now: number): Promise<void> {
  try {
    await releaseProviderTokens(config, userId, ref, now)
  } catch (err) {
    config.logger.error(new SignOutError("The provider tokens of the ended session could not be released.", { err }))
  }
}

/** Database sessions: what the session index keeps of the sign-in (an OIDC sign-in's ID token and `sid`). */
export function sessionRecordFields(subject: SignInSubject): SessionExtras {
  const { account, sid } = subject
  if (account?.type !== "oidc" || typeof account.id_token !== "string") return {}
  return { p: account.provider, i: account.id_token, ...(sid ? { d: sid } : {}) }
}

/**
 * A database session re-issued under a new token (`revokeOtherSessions`): the new session `to` takes
 * over what `from` was noted for (its provider session, its hold on provider tokens). Never throws.
 */
export async function sessionReissued(ctx: RequestContext, userId: string, from: string, to: string, extras: SessionExtras): Promise<void> {
  try {
    if (extras.p && extras.d) await rememberSidSession(ctx.config, extras.p, extras.d, { userId, ref: to })
    await transferProviderTokens(ctx.config, userId, from, to)
  } catch (err) {
    ctx.config.logger.error(new SessionTokenError("The re-issued session could not be noted for logout and provider tokens.", { err }))
  }
}
