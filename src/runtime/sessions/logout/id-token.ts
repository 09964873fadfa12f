/**
 * Keeping the provider's ID token for RP-initiated logout's `id_token_hint` under the JWT strategy
 * (`logout.keepIdToken`): one claim in the encrypted session token, `idTokenHint: { provider, token }`,
 * written at sign-in after the `jwt` callback (so a callback that builds a new token cannot lose it)
 * and carried over on every re-issue. The database strategy needs none of this: the account row keeps
 * `id_token`, as in Auth.js.
 */
import type { Account, JWT } from "../../../types.js"
import type { RequestContext } from "../../http/context.js"

/** The session-token claim that keeps the ID token. */
export const ID_TOKEN_CLAIM = "idTokenHint"

/** The kept ID token and the provider that issued it. */
export interface KeptIdToken {
  readonly provider: string
  readonly token: string
}

/** The kept ID token of a decoded session token, if it is well formed. */
export function keptIdToken(token: JWT | null | undefined): KeptIdToken | undefined {
  const kept = token?.[ID_TOKEN_CLAIM]
  if (typeof kept !== "object" || kept === null) return undefined
  const { provider, token: idToken } = kept as Record<string, unknown>
  return typeof provider === "string" && typeof idToken === "string" ? { provider, token: idToken } : undefined
}

/** The session token with the OIDC sign-in's ID token kept, when `logout.keepIdToken` asks for it. */
export function keepIdToken(ctx: RequestContext, token: JWT, account: Account | null): JWT {
  if (!ctx.config.logout.keepIdToken || account?.type !== "oidc" || typeof account.id_token !== "string") return token
  return { ...token, [ID_TOKEN_CLAIM]: { provider: account.provider, token: account.id_token } }
}

/** `next` with the ID token `previous` kept, when the `jwt` callback dropped it. */
export function carryIdToken(previous: JWT, next: JWT): JWT {
  if (next[ID_TOKEN_CLAIM] !== undefined || previous[ID_TOKEN_CLAIM] === undefined) return next
  return { ...next, [ID_TOKEN_CLAIM]: previous[ID_TOKEN_CLAIM] }
}
