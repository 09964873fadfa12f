/**
 * Whether the signed-in user proved who they are recently enough to remove a factor: the session's
 * `authTime` (seconds since the epoch, the moment of the last proof, set at every sign-in and
 * re-authentication) within `factors.freshFor`. A session without one is not fresh.
 */
import type { RequestContext } from "../http/context.js"
import type { SignedIn } from "../sessions/signed-in.js"

/** Seconds a proof may lie ahead of the clock (another instance's clock). */
const CLOCK_SKEW = 60

/** The moment of the session's last proof (seconds since the epoch), or null when it carries none. */
export function lastProof(who: SignedIn): number | null {
  const at = who.payload?.authTime
  return typeof at === "number" && Number.isFinite(at) ? at : null
}

/** Whether the session's last proof is within `factors.freshFor` of now. */
export function hasFreshProof(ctx: RequestContext, who: SignedIn): boolean {
  const at = lastProof(who)
  if (at === null) return false
  const age = ctx.now / 1000 - at
  return age >= -CLOCK_SKEW && age <= ctx.config.factors.freshFor
}

/**
 * Where a user goes for a fresh proof and back to `back`: the re-authentication route when the app
 * serves one (`<basePath>/reauth`), else the sign-in page (a new sign-in is a fresh proof).
 */
export function freshProofUrl(ctx: RequestContext, back: string): string {
  const action = ctx.config.routing.extraActions.has("reauth") ? "reauth" : "signin"
  return `${ctx.authUrl}/${action}?${new URLSearchParams({ callbackUrl: back })}`
}
