/**
 * Every error authchart raises is an {@link AuthError} with a `type` from a closed union, so
 * `switch (err.type)` narrows. `kind` decides where the user lands: `"signIn"` errors go back to the
 * sign-in page, the rest to the error page. The message is public and never holds a token or secret;
 * evidence goes in `cause`.
 *
 * @example
 * ```ts
 * import { CredentialsSignin } from "authchart"
 * class InvalidLogin extends CredentialsSignin { code = "invalid_login" }
 * // in authorize(): throw new InvalidLogin() → /auth/signin?error=CredentialsSignin&code=invalid_login
 * ```
 */
export type ErrorType =
  | "AccessDenied"
  | "AdapterError"
  | "AuthError"
  | "CallbackRouteError"
  | "CredentialsSignin"
  | "DuplicateConditionalUI"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "ExperimentalFeatureNotEnabled"
  | "FlowStateError"
  | "FlowStoreUnavailable"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidEndpoints"
  | "InvalidProvider"
  | "JWTSessionError"
  | "MissingAdapter"
  | "MissingAdapterMethods"
  | "MissingAuthorize"
  | "MissingCSRF"
  | "MissingDependency"
  | "MissingSecret"
  | "MissingWebAuthnAutocomplete"
  | "OAuthAccountNotLinked"
  | "OAuthCallbackError"
  | "OAuthProfileParseError"
  | "OAuthSignInError"
  | "RateLimited"
  | "RateLimitUnavailable"
  | "AccountNotLinked"
  | "SessionTokenError"
  | "SignOutError"
  | "UnknownAction"
  | "UnsupportedStrategy"
  | "UntrustedHost"
  | "Verification"
  | "WebAuthnVerificationError"

/** Where an error sends the user: back to sign-in, or to the error page. */
export type ErrorKind = "signIn" | "error"

/** Options kept as private evidence on an error: logged, never shown. */
export type ErrorCause = Record<string, unknown> & { err?: unknown }

/** Base class of every authchart error. */
export class AuthError extends Error {
  static type: ErrorType = "AuthError"
  static kind: ErrorKind = "error"
  declare cause?: ErrorCause

  constructor(message?: string | Error | ErrorCause, options?: ErrorCause) {
    if (message instanceof Error) {
      super(undefined, { cause: { err: message, ...(options ?? {}) } })
    } else if (typeof message === "string") {
      super(message, options === undefined ? undefined : { cause: options })
    } else {
      super(undefined, message === undefined ? undefined : { cause: message })
    }
    this.name = new.target.name
    if (!this.message) this.message = this.type
  }

  /** The error's type: one of {@link ErrorType}. */
  get type(): ErrorType {
    return (this.constructor as typeof AuthError).type
  }

  /** `"signIn"` errors return to the sign-in page, `"error"` ones go to the error page. */
  get kind(): ErrorKind {
    return (this.constructor as typeof AuthError).kind
  }
}

/** An error during sign-in that sends the user back to the sign-in page. */
export class SignInError extends AuthError {
  static override kind: ErrorKind = "signIn"
}

/** The `signIn` callback returned false or threw. Shown as a 403 error page. */
export class AccessDenied extends AuthError {
  static override type: ErrorType = "AccessDenied"
}
/** An adapter method threw. The cause keeps the adapter's error. */
export class AdapterError extends AuthError {
  static override type: ErrorType = "AdapterError"
}
/** An unexpected error inside a callback route. */
export class CallbackRouteError extends AuthError {
  static override type: ErrorType = "CallbackRouteError"
}
/** A provider error parameter or a failed OAuth callback. */
export class OAuthCallbackError extends SignInError {
  static override type: ErrorType = "OAuthCallbackError"
}
/** The OAuth `profile()` mapping threw. */
export class OAuthProfileParseError extends AuthError {
  static override type: ErrorType = "OAuthProfileParseError"
}
/** Starting an OAuth sign-in failed. */
export class OAuthSignInError extends SignInError {
  static override type: ErrorType = "OAuthSignInError"
}
/**
 * Starting an email sign-in failed: `code` says why (`invalid_email`: the address was refused;
 * `send_failed`: the message could not be sent). Client-safe, shown on the sign-in page.
 */
export class EmailSignInError extends SignInError {
  static override type: ErrorType = "EmailSignInError"
  code: "invalid_email" | "send_failed" = "invalid_email"
}
/**
 * `authorize` returned null, or threw this (or a subclass). `code` is URL-safe and ends up in the
 * redirect as `&code=<code>`.
 */
export class CredentialsSignin extends SignInError {
  static override type: ErrorType = "CredentialsSignin"
  /** Shown to the client in `?code=`: keep it URL-safe and free of secrets. */
  code = "credentials"
}
/** The configured error page itself failed. */
export class ErrorPageLoop extends AuthError {
  static override type: ErrorType = "ErrorPageLoop"
}
/** An event handler threw. Logged, never fatal. */
export class EventError extends AuthError {
  static override type: ErrorType = "EventError"
}
/** A `callbackUrl` query parameter or cookie that is not an http(s) URL. */
export class InvalidCallbackUrl extends AuthError {
  static override type: ErrorType = "InvalidCallbackUrl"
}
/** A flow check (state, PKCE, nonce, challenge) failed. */
export class InvalidCheck extends AuthError {
  static override type: ErrorType = "InvalidCheck"
}
/**
 * Persisted flow state that is missing, expired, tampered, replayed or for another flow. Client-safe:
 * the user is sent back to sign-in to start again.
 */
export class FlowStateError extends SignInError {
  static override type: ErrorType = "FlowStateError"
}
/** The flow store (e.g. Redis) could not be reached in time. A server problem: `error=Configuration`. */
export class FlowStoreUnavailable extends AuthError {
  static override type: ErrorType = "FlowStoreUnavailable"
}
/** An OAuth provider without an issuer lacks the endpoints it needs. */
export class InvalidEndpoints extends AuthError {
  static override type: ErrorType = "InvalidEndpoints"
}
/** A provider used in a way its type does not allow. */
export class InvalidProvider extends AuthError {
  static override type: ErrorType = "InvalidProvider"
}
/** A session token that could not be decoded. Logged; the session reads as `null`. */
export class JWTSessionError extends AuthError {
  static override type: ErrorType = "JWTSessionError"
}
/** A database session or email provider configured without an adapter. */
export class MissingAdapter extends AuthError {
  static override type: ErrorType = "MissingAdapter"
}
/** The adapter lacks methods that the enabled flows call. */
export class MissingAdapterMethods extends AuthError {
  static override type: ErrorType = "MissingAdapterMethods"
}
/** A credentials provider without `authorize`. */
export class MissingAuthorize extends AuthError {
  static override type: ErrorType = "MissingAuthorize"
}
/** No secret, or one shorter than 32 characters. */
export class MissingSecret extends AuthError {
  static override type: ErrorType = "MissingSecret"
}
/**
 * An optional package a configured provider needs is not installed (`nodemailer` for email,
 * `@simplewebauthn/server` and `@simplewebauthn/browser` for passkeys). The message names the package
 * and the install command; `cause.packages` lists them. A configuration error: `error=Configuration`.
 */
export class MissingDependency extends AuthError {
  static override type: ErrorType = "MissingDependency"
}
/** A missing or wrong CSRF token on a state-changing request. */
export class MissingCSRF extends SignInError {
  static override type: ErrorType = "MissingCSRF"
}
/** The OAuth account belongs to another user, or its email to an unlinked user. */
export class OAuthAccountNotLinked extends SignInError {
  static override type: ErrorType = "OAuthAccountNotLinked"
}
/** A database session lookup failed. Logged; the session reads as `null`. */
export class SessionTokenError extends AuthError {
  static override type: ErrorType = "SessionTokenError"
}
/** Sign-out failed to destroy the session. Logged; the cookies are cleared anyway. */
export class SignOutError extends AuthError {
  static override type: ErrorType = "SignOutError"
}
/** The request names no action authchart knows, or uses a method the action does not take. */
export class UnknownAction extends AuthError {
  static override type: ErrorType = "UnknownAction"
}
/** A session strategy the configured providers cannot use. */
export class UnsupportedStrategy extends AuthError {
  static override type: ErrorType = "UnsupportedStrategy"
}
/** The request's host is not trusted: set `trustHost`, `AUTH_TRUST_HOST` or `AUTH_URL`. */
export class UntrustedHost extends AuthError {
  static override type: ErrorType = "UntrustedHost"
}
/** An email verification token that is missing, used, expired or for another address. */
export class Verification extends AuthError {
  static override type: ErrorType = "Verification"
}
/** The WebAuthn account belongs to another user. */
export class AccountNotLinked extends SignInError {
  static override type: ErrorType = "AccountNotLinked"
}
/** More than one WebAuthn provider enables conditional UI. */
export class DuplicateConditionalUI extends AuthError {
  static override type: ErrorType = "DuplicateConditionalUI"
}
/** The conditional-UI WebAuthn provider has no form field with `webauthn` autocomplete. */
export class MissingWebAuthnAutocomplete extends AuthError {
  static override type: ErrorType = "MissingWebAuthnAutocomplete"
}
/** A WebAuthn response failed verification. */
export class WebAuthnVerificationError extends AuthError {
  static override type: ErrorType = "WebAuthnVerificationError"
}
/** An experimental feature used without being enabled in `experimental`. */
export class ExperimentalFeatureNotEnabled extends AuthError {
  static override type: ErrorType = "ExperimentalFeatureNotEnabled"
}

/**
 * A rate limit refused the request (README "Limits"). Client-safe: the sign-in page says "Too many
 * attempts. Try again in N minutes." and never whether the account exists.
 */
export class RateLimited extends SignInError {
  static override type: ErrorType = "RateLimited"
}
/** The server-state port failed while counting a rule that fails closed (password attempts). */
export class RateLimitUnavailable extends AuthError {
  static override type: ErrorType = "RateLimitUnavailable"
}

/** The error types whose name may be shown to the client in `?error=`; the rest become `Configuration`. */
export const clientSafeErrorTypes: ReadonlySet<ErrorType> = new Set<ErrorType>([
  "CredentialsSignin",
  "OAuthAccountNotLinked",
  "OAuthCallbackError",
  "AccessDenied",
  "Verification",
  "MissingCSRF",
  "AccountNotLinked",
  "WebAuthnVerificationError",
  "EmailSignInError",
  "FlowStateError",
  "RateLimited",
])

/** True when `error`'s type may appear in a URL or page. */
export function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && clientSafeErrorTypes.has(error.type)
}
