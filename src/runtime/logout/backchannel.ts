/**
 * The back-channel logout receiver (OpenID Connect Back-Channel Logout 1.0 §2.5–2.8):
 * `POST <basePath>/backchannel-logout/<provider>` with the form field `logout_token`, sent by the
 * provider's server, not a browser (so no CSRF token; rate-limited per client instead). A valid token
 * ends every session of its user here: database sessions deleted, JWT sessions refused from now on
 * (the per-user "not before" of `revokeSessions`). The answer is 200, or 400 `{"error":"invalid_request"}`
 * on any failure, logged once as `BackchannelLogoutError`; never cached.
 */
import { BackchannelLogoutError } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import type { Handled, RequestContext } from "../context.js"
import { adapterOf } from "../adapter.js"
import { stableUserId } from "../effects/oauth.js"
import { json } from "../respond.js"
import { revokeUser } from "../revocation.js"
import { type LogoutClaims, verifyLogoutToken } from "./logout-token.js"

const NO_STORE = Object.freeze({ "Cache-Control": "no-store" })

/** The user whose sessions a logout token ends: found by the account (provider, `sub`). */
async function userIdOf(ctx: RequestContext, providerId: string, sub: string): Promise<string | undefined> {
  const adapter = adapterOf(ctx)
  // without an adapter a JWT session's `sub` is derived from provider and account id (oauth.ts)
  if (!adapter) return stableUserId(providerId, sub)
  return (await adapter.getUserByAccount({ provider: providerId, providerAccountId: sub }))?.id
}

/** Ends the sessions a verified token names. Sessions are found by `sub`; a token with only `sid` is refused. */
async function endSessions(ctx: RequestContext, providerId: string, claims: LogoutClaims): Promise<void> {
  if (!claims.sub) throw new BackchannelLogoutError("The logout token names only a sid; sessions are found by sub.")
  const userId = await userIdOf(ctx, providerId, claims.sub)
  if (!userId) {
    ctx.config.logger.debug("backchannel-logout", { provider: providerId, sessions: "none (no such account)" })
    return
  }
  await revokeUser(ctx.config, userId, ctx.now)
  ctx.config.logger.debug("backchannel-logout", { provider: providerId, sessions: "ended" })
}

async function receive(ctx: RequestContext): Promise<void> {
  const provider = ctx.provider
  if (provider?.type !== "oidc") throw new BackchannelLogoutError(`"${ctx.providerId}" is not an OIDC provider.`)
  const token = ctx.req.body?.logout_token
  if (typeof token !== "string" || token === "") throw new BackchannelLogoutError("The request has no logout_token.")
  const claims = await verifyLogoutToken(ctx, provider.config as OAuthConfig, token)
  try {
    await endSessions(ctx, provider.id, claims)
  } catch (err) {
    // the provider may retry with the same token: its jti is free again
    await ctx.config.serverState.reset(claims.jtiKey).catch(() => undefined)
    throw err
  }
}

/** `POST /backchannel-logout/<provider>`: 200 when the sessions ended, else 400 `invalid_request`. */
export async function backchannelLogout(ctx: RequestContext): Promise<Handled> {
  try {
    await receive(ctx)
    return { response: { status: 200, headers: { ...NO_STORE } } }
  } catch (err) {
    const error = err instanceof BackchannelLogoutError ? err : new BackchannelLogoutError("The back-channel logout failed.", { err })
    ctx.config.logger.error(error)
    return { response: json({ error: "invalid_request" }, 400, NO_STORE), error }
  }
}
