/** The base of every authchart error and the closed union of their `type`s. */

/** Every `type` an authchart error can have: the names of the error classes (Auth.js' names). */
export type ErrorType =
  | "AccessDenied"
  | "AccessTokenUnavailable"
  | "AccountNotFound"
  | "AdapterError"
  | "AuthError"
  | "BackchannelLogoutError"
  | "CallbackRouteError"
  | "CredentialsSignin"
  | "DuplicateConditionalUI"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "ExperimentalFeatureNotEnabled"
  | "FlowStartedElsewhere"
  | "FlowStateError"
  | "FlowStoreUnavailable"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidEndpoints"
  | "InvalidProvider"
  | "JWTSessionError"
  | "LastSignInMethod"
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
  | "RefreshTokenError"
  | "AccountNotLinked"
  | "SessionNotFound"
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
  static readonly type: ErrorType = "AuthError"
  static readonly kind: ErrorKind = "error"
  /** The error's type: one of {@link ErrorType}, the literal of its class (so `switch (err.type)` narrows {@link AnyAuthError}). */
  readonly type: ErrorType
  /** `"signIn"` errors return to the sign-in page, `"error"` ones go to the error page. */
  readonly kind: ErrorKind
  declare cause?: ErrorCause

  /**
   * Every authchart error takes the same arguments: a public message, an `Error` to keep as the cause, or
   * the cause alone; `options` adds to the cause.
   */
  constructor(message?: string | Error | ErrorCause, options?: ErrorCause) {
    if (message instanceof Error) {
      super(undefined, { cause: { err: message, ...(options ?? {}) } })
    } else if (typeof message === "string") {
      super(message, options === undefined ? undefined : { cause: options })
    } else {
      super(undefined, message === undefined ? undefined : { cause: message })
    }
    this.name = new.target.name
    this.type = new.target.type
    this.kind = new.target.kind
    if (!this.message) this.message = this.type
  }
}

/** An error during sign-in that sends the user back to the sign-in page. */
export class SignInError extends AuthError {
  static override readonly kind: ErrorKind = "signIn"
}
