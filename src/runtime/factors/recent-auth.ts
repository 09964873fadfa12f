/**
 * How recently the signed-in user of a request proved who they are: the session's `authTime` (set by the
 * sign-in, refreshed by a re-authentication; ../sessions/auth-time.ts says where each strategy keeps it).
 * A session without one (issued by Auth.js, or its database record gone) has no recent proof.
 */
import type { RequestContext } from "../http/context.js"
import { databaseAuthTime, jwtAuthTime } from "../sessions/auth-time.js"
import { type SignedIn, signedIn } from "../sessions/signed-in.js"

/**
 * The last proof (seconds since the epoch) of the session `who`, or null when it has none.
 * @example const at = await proofOf(ctx, who) // who from signedIn(ctx)
 */
export async function proofOf(ctx: RequestContext, who: SignedIn): Promise<number | null> {
  if (who.token !== undefined) return (await databaseAuthTime(ctx.config, who.token)) ?? null
  return jwtAuthTime(who.payload) ?? null
}

/**
 * When the request's signed-in user last proved who they are (seconds since the epoch), after a full
 * session read (expired, revoked or tampered: nobody); null when nobody is signed in or the session
 * carries no proof time.
 *
 * @example
 * ```ts
 * const at = await lastProofAt(ctx)
 * const fresh = at !== null && isRecent(at, 300, ctx.now)
 * ```
 */
export async function lastProofAt(ctx: RequestContext): Promise<number | null> {
  const who = await signedIn(ctx)
  return who.userId === undefined ? null : proofOf(ctx, who)
}

/**
 * Whether a proof at `at` (seconds) is at most `maxAge` seconds old at `nowMs`; a proof dated in the
 * future (a clock ahead elsewhere) counts as now.
 * @example isRecent(session.authTime, 300, Date.now())
 */
export function isRecent(at: number | null | undefined, maxAge: number, nowMs: number): boolean {
  return typeof at === "number" && Math.floor(nowMs / 1000) - at <= maxAge
}

/** The action of the re-authentication routes (`<basePath>/reauth`), where a stale proof is sent. */
export const STEP_UP_ACTION = "reauth"
