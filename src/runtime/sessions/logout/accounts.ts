/**
 * The ID token of a database session at a provider, for RP-initiated logout's `id_token_hint`: the one
 * of the sign-in that started this session, which the session index keeps with the session (`<id>:p`,
 * `<id>:i`, ../user-index.ts). A session the index has no ID token for (issued before it kept them,
 * or lost with a memory port's restart) falls back to the account row's `id_token`, which Auth.js writes
 * when it links the account, so it is the account's first one; the row is found through the user's
 * account index (`linkedAccountIds`) and the adapter's `getAccount`. Providers accept an older or
 * expired hint (RP-Initiated Logout 1.0 §2 asks them to for a recent session; oidc-provider ignores its
 * expiry), but the latest one names the provider session being ended.
 */
import { linkedAccountIds } from "../accounts.js"
import type { RequestContext } from "../../http/context.js"
import { adapterOf } from "../adapter.js"
import { extrasOf, indexedSessions, sessionId } from "../user-index.js"

/** The ID token a session holds for a provider, if it can be found. */
export type IdTokenOf = (providerId: string) => Promise<string | undefined>

const none: IdTokenOf = async () => undefined

/**
 * The ID tokens of the database session `sessionToken`, by provider: the session is read once
 * (`getSessionAndUser`), whatever the number of providers asked about.
 */
export async function accountIdTokens(ctx: RequestContext, sessionToken: string): Promise<IdTokenOf> {
  const adapter = adapterOf(ctx)
  if (!adapter) return none
  const found = await adapter.getSessionAndUser(sessionToken)
  if (!found) return none
  const userId = String(found.user.id)
  const id = sessionId(sessionToken)
  const entry = (await indexedSessions(ctx.config, userId)).find((s) => s.id === id)
  const kept = entry ? extrasOf(entry) : {}
  const hasGetAccount = typeof (ctx.config.adapter as { getAccount?: unknown }).getAccount === "function"
  return async (providerId) => {
    if (kept.p === providerId && kept.i) return kept.i
    if (!hasGetAccount) return undefined
    for (const providerAccountId of await linkedAccountIds(ctx.config, userId, providerId)) {
      const idToken = (await adapter.getAccount(providerAccountId, providerId))?.id_token
      if (typeof idToken === "string") return idToken
    }
    return undefined
  }
}
