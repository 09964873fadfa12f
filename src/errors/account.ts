/** Errors of session and account management (docs/sessions.md "Sessions and accounts the user can manage"). */
import { AuthError } from "./auth-error.js"

/** `POST /auth/unlink-account/<provider>`, `unlinkAccount`: the user has no linked account of that provider. */
export class AccountNotFound extends AuthError {
  static override readonly type = "AccountNotFound" as const
  declare readonly type: typeof AccountNotFound.type
}

/**
 * `unlinkAccount` refused: the account is the user's last way to sign in (no other linked account,
 * passkey, email sign-in, or app-vouched password). Client-safe.
 */
export class LastSignInMethod extends AuthError {
  static override readonly type = "LastSignInMethod" as const
  declare readonly type: typeof LastSignInMethod.type
}

/** `POST /auth/revoke-session`: the signed-in user has no session with that id. */
export class SessionNotFound extends AuthError {
  static override readonly type = "SessionNotFound" as const
  declare readonly type: typeof SessionNotFound.type
}
