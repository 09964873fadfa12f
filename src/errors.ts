/**
 * Every error authchart raises is an {@link AuthError} with a `type` from a closed union: each class
 * has its own literal `type`, so `switch (err.type)` on an {@link AnyAuthError} (see {@link isAuthError})
 * narrows to the class. `kind` decides where the user lands: `"signIn"` errors go back to the
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
import { AuthError, type ErrorType } from "./errors/auth-error.js"
import type {
  AccessDenied,
  AdapterError,
  BackchannelLogoutError,
  CallbackRouteError,
  DuplicateConditionalUI,
  ErrorPageLoop,
  EventError,
  ExperimentalFeatureNotEnabled,
  FlowStoreUnavailable,
  InvalidCallbackUrl,
  InvalidCheck,
  InvalidEndpoints,
  InvalidProvider,
  JWTSessionError,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingDependency,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  OAuthProfileParseError,
  RateLimitUnavailable,
  SessionTokenError,
  SignOutError,
  UnknownAction,
  UnsupportedStrategy,
  UntrustedHost,
  Verification,
  WebAuthnVerificationError,
} from "./errors/error-page.js"
import type {
  AccountNotLinked,
  CredentialsSignin,
  EmailSignInError,
  FlowStartedElsewhere,
  FlowStateError,
  MissingCSRF,
  OAuthAccountNotLinked,
  OAuthCallbackError,
  OAuthSignInError,
  RateLimited,
} from "./errors/sign-in.js"
import type { AccountNotFound, LastSignInMethod, SessionNotFound } from "./errors/account.js"
import type { AccessTokenUnavailable, RefreshTokenError } from "./errors/tokens.js"

export * from "./errors/auth-error.js"
export * from "./errors/error-page.js"
export * from "./errors/sign-in.js"
export * from "./errors/account.js"
export * from "./errors/tokens.js"

/**
 * Every authchart error class, as one union discriminated by `type`: `switch (err.type)` narrows to the
 * class, e.g. to {@link CredentialsSignin} and its `code`. `AuthError` itself (and `SignInError`) stand for
 * errors of type `"AuthError"`.
 *
 * @example
 * ```ts
 * import { isAuthError } from "authchart"
 * if (isAuthError(err)) switch (err.type) {
 *   case "CredentialsSignin": console.log(err.code); break
 *   case "EmailSignInError": console.log(err.code); break // "invalid_email" | "send_failed"
 * }
 * ```
 */
export type AnyAuthError =
  | (AuthError & { readonly type: "AuthError" })
  | AccessDenied
  | AccessTokenUnavailable
  | AccountNotFound
  | AccountNotLinked
  | AdapterError
  | BackchannelLogoutError
  | CallbackRouteError
  | CredentialsSignin
  | DuplicateConditionalUI
  | EmailSignInError
  | ErrorPageLoop
  | EventError
  | ExperimentalFeatureNotEnabled
  | FlowStartedElsewhere
  | FlowStateError
  | FlowStoreUnavailable
  | InvalidCallbackUrl
  | InvalidCheck
  | InvalidEndpoints
  | InvalidProvider
  | JWTSessionError
  | LastSignInMethod
  | MissingAdapter
  | MissingAdapterMethods
  | MissingAuthorize
  | MissingCSRF
  | MissingDependency
  | MissingSecret
  | MissingWebAuthnAutocomplete
  | OAuthAccountNotLinked
  | OAuthCallbackError
  | OAuthProfileParseError
  | OAuthSignInError
  | RateLimitUnavailable
  | RateLimited
  | RefreshTokenError
  | SessionNotFound
  | SessionTokenError
  | SignOutError
  | UnknownAction
  | UnsupportedStrategy
  | UntrustedHost
  | Verification
  | WebAuthnVerificationError

/** True when `error` is an authchart error, typed as {@link AnyAuthError} so its `type` narrows. */
export function isAuthError(error: unknown): error is AnyAuthError {
  return error instanceof AuthError
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
  "FlowStartedElsewhere",
  "RateLimited",
  "LastSignInMethod",
  "AccountNotFound",
  "SessionNotFound",
])

/** True when `error`'s type may appear in a URL or page. */
export function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && clientSafeErrorTypes.has(error.type)
}
