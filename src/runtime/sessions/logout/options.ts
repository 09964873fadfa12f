/**
 * The `logout` option resolved once: which provider a plain sign-out logs out at, the exact
 * `post_logout_redirect_uri`, whether JWT sessions keep the ID token, how old a logout token may be, and
 * whether the sign-out page offers logout at the provider.
 */
import type { LogoutOptions } from "../../../types.js"
import type { ResolvedLogout } from "../../../types/resolved.js"
export type { ResolvedLogout }

const DEFAULT_MAX_TOKEN_AGE_S = 300

/** Resolves `logout`; throws `TypeError` on a `postLogoutRedirectUri` that is not an absolute http(s) URL. */
export function resolveLogout(input: LogoutOptions | undefined): ResolvedLogout {
  const uri = input?.postLogoutRedirectUri
  if (uri !== undefined && !/^https?:\/\/[^/]/.test(uri)) {
    throw new TypeError("logout.postLogoutRedirectUri must be an absolute http(s) URL.")
  }
  const maxAge = input?.maxTokenAge ?? DEFAULT_MAX_TOKEN_AGE_S
  if (!(Number.isFinite(maxAge) && maxAge > 0)) throw new TypeError("logout.maxTokenAge must be a positive number of seconds.")
  return Object.freeze({
    provider: input?.provider,
    postLogoutRedirectUri: uri,
    keepIdToken: input?.keepIdToken === true,
    maxTokenAgeMs: maxAge * 1000,
    offerOnSignOutPage: input?.offerOnSignOutPage === true,
  })
}
