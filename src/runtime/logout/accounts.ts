/**
 * The ID token of a database session's account at a provider: the account row keeps `id_token` (Auth.js
 * stores it when the account is linked). Auth.js adapters cannot list a user's accounts, so the row is
 * found through the user's account index in the server store (`linkedAccountIds`), then read with the
 * adapter's `getAccount`. The row keeps the ID token of the first sign-in with that account; that does as
 * a hint, as providers accept an expired `id_token_hint` (RP-Initiated Logout 1.0 §2 asks them to for a
 * recent session; oidc-provider ignores its expiry).
 */
import { linkedAccountIds } from "../accounts.js"
import type { RequestContext } from "../context.js"
import { adapterOf } from "../adapter.js"

/** The `id_token` stored for the database session `sessionToken` at `providerId`, if it can be found. */
export async function accountIdToken(ctx: RequestContext, sessionToken: string, providerId: string): Promise<string | undefined> {
  const adapter = adapterOf(ctx)
  if (!adapter || typeof (ctx.config.adapter as { getAccount?: unknown }).getAccount !== "function") return undefined
  const found = await adapter.getSessionAndUser(sessionToken)
  if (!found) return undefined
  for (const providerAccountId of await linkedAccountIds(ctx.config, String(found.user.id), providerId)) {
    const idToken = (await adapter.getAccount(providerAccountId, providerId))?.id_token
    if (typeof idToken === "string") return idToken
  }
  return undefined
}
