/**
 * `POST /signout` with `everywhere=true` (urlencoded or JSON, CSRF-checked like every sign-out): before
 * the usual sign-out, revoke every session of the signed-in user on every instance (see
 * `revokeSessions`). A failure is logged as `SignOutError`; this browser is signed out regardless.
 */
import { SignOutError } from "../../errors.js"
import type { RequestContext } from "../http/context.js"
import { revokeUser } from "./revocation.js"
import { sessionUserId } from "./signed-in.js"

/** Whether the sign-out asks to end the user's sessions everywhere. */
export function wantsEverywhere(ctx: RequestContext): boolean {
  const value = ctx.req.body?.everywhere
  return value === true || value === "true"
}

/** Revokes every session of the user signed in on this request, if any. Never throws. */
export async function signOutEverywhere(ctx: RequestContext): Promise<void> {
  try {
    const userId = (await sessionUserId(ctx))?.userId
    if (userId) await revokeUser(ctx.config, userId, ctx.now)
  } catch (err) {
    ctx.config.logger.error(new SignOutError("The sessions could not be revoked everywhere.", { err }))
  }
}
