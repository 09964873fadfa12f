/** Errors that send the user back to the sign-in page with `?error=<type>`. */
import { SignInError } from "./auth-error.js"

/** A provider error parameter or a failed OAuth callback. */
export class OAuthCallbackError extends SignInError {
  static override readonly type = "OAuthCallbackError" as const
  declare readonly type: typeof OAuthCallbackError.type
}

/** Starting an OAuth sign-in failed. */
export class OAuthSignInError extends SignInError {
  static override readonly type = "OAuthSignInError" as const
  declare readonly type: typeof OAuthSignInError.type
}

/**
 * Starting an email sign-in failed: `code` says why (`invalid_email`: the address was refused;
 * `send_failed`: the message could not be sent). Client-safe, shown on the sign-in page.
 */
export class EmailSignInError extends SignInError {
  static override readonly type = "EmailSignInError" as const
  declare readonly type: typeof EmailSignInError.type
  code: "invalid_email" | "send_failed" = "invalid_email"
}

/**
 * `authorize` returned null, or threw this (or a subclass). `code` is URL-safe and ends up in the
 * redirect as `&code=<code>`.
 */
export class CredentialsSignin extends SignInError {
  static override readonly type = "CredentialsSignin" as const
  declare readonly type: typeof CredentialsSignin.type
  /** Shown to the client in `?code=`: keep it URL-safe and free of secrets. */
  code = "credentials"
}

/**
 * Persisted flow state that is missing, expired, tampered, replayed or for another flow. Client-safe:
 * the user is sent back to sign-in to start again.
 */
export class FlowStateError extends SignInError {
  static override readonly type = "FlowStateError" as const
  declare readonly type: typeof FlowStateError.type
}

/**
 * A callback that carries another library's sign-in in progress (Auth.js' `state`, `pkce` or `nonce`
 * cookie) and none of ours: a sign-in started before the switch to authchart. Client-safe: the user is
 * sent back to sign-in to start again.
 */
export class FlowStartedElsewhere extends SignInError {
  static override readonly type = "FlowStartedElsewhere" as const
  declare readonly type: typeof FlowStartedElsewhere.type
}

/** A missing or wrong CSRF token on a state-changing request. */
export class MissingCSRF extends SignInError {
  static override readonly type = "MissingCSRF" as const
  declare readonly type: typeof MissingCSRF.type
}

/** The OAuth account belongs to another user, or its email to an unlinked user. */
export class OAuthAccountNotLinked extends SignInError {
  static override readonly type = "OAuthAccountNotLinked" as const
  declare readonly type: typeof OAuthAccountNotLinked.type
}

/** The WebAuthn account belongs to another user. */
export class AccountNotLinked extends SignInError {
  static override readonly type = "AccountNotLinked" as const
  declare readonly type: typeof AccountNotLinked.type
}

/**
 * A rate limit refused the request (docs/security.md "Limits"). Client-safe: the sign-in page says "Too many
 * attempts. Try again in N minutes." and never whether the account exists.
 */
export class RateLimited extends SignInError {
  static override readonly type = "RateLimited" as const
  declare readonly type: typeof RateLimited.type
}
