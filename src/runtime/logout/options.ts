/**
 * The `logout` option resolved once: which provider a plain sign-out logs out at, the exact
 * `post_logout_redirect_uri`, whether JWT sessions keep the ID token, and how old a logout token may be.
 */
import type { LogoutOptions } from "../../types.js"

/** `logout` resolved (README "Logout at the provider"). */
export interface ResolvedLogout {
  readonly provider: string | undefined
  readonly postLogoutRedirectUri: string | undefined
  readonly keepIdToken: boolean
  /** Milliseconds a logout token's `iat` may lie in the past. */
  readonly maxTokenAgeMs: number
}

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
  })
}
