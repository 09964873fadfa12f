/**
 * Whether the signed-in user proved who they are recently enough to remove a factor: the session's
 * `authTime` (recent-auth.ts: set at every sign-in and re-authentication) within `factors.freshFor`.
 * A session without one is not fresh.
 */
import type { RequestContext } from "../http/context.js"
import type { SignedIn } from "../sessions/signed-in.js"
import { isRecent, proofOf } from "./recent-auth.js"
import { STEP_UP_ACTION } from "./recent-auth.js"

/** Whether the session's last proof is within `factors.freshFor` seconds of now. */
export async function hasFreshProof(ctx: RequestContext, who: SignedIn): Promise<boolean> {
  return isRecent(await proofOf(ctx, who), ctx.config.factors.freshFor, ctx.now)
}

/** Where a user goes for a fresh proof and back to `back`: the re-authentication (`<basePath>/reauth`). */
export function freshProofUrl(ctx: RequestContext, back: string): string {
  return `${ctx.authUrl}/${STEP_UP_ACTION}?${new URLSearchParams({ callbackUrl: back })}`
}
