/** Errors of `getAccessToken` (docs/sessions.md "Provider tokens"). */
import { AuthError } from "./auth-error.js"

/**
 * The provider refused to refresh the user's tokens (`invalid_grant`: the refresh token expired, was
 * revoked or was used twice), or the access token expired with no refresh token. The user must sign in
 * with that provider again; until then the session carries `error: "RefreshTokenError"`.
 */
export class RefreshTokenError extends AuthError {
  static override readonly type = "RefreshTokenError" as const
  declare readonly type: typeof RefreshTokenError.type
}

/**
 * No valid access token right now, but the stored tokens stand: the provider could not be reached in
 * time or answered with another error, the server-state store failed, or another instance's refresh
 * took longer than `refreshWait`. Try again later.
 */
export class AccessTokenUnavailable extends AuthError {
  static override readonly type = "AccessTokenUnavailable" as const
  declare readonly type: typeof AccessTokenUnavailable.type
}
