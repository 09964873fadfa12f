/** Errors that end on the error page: refusals, failed checks, and configuration or server problems. */
import { AuthError } from "./auth-error.js"

/** The `signIn` callback returned false or threw. Shown as a 403 error page. */
export class AccessDenied extends AuthError {
  static override readonly type = "AccessDenied" as const
  declare readonly type: typeof AccessDenied.type
}

/** An adapter method threw. The cause keeps the adapter's error. */
export class AdapterError extends AuthError {
  static override readonly type = "AdapterError" as const
  declare readonly type: typeof AdapterError.type
}

/** An unexpected error inside a callback route. */
export class CallbackRouteError extends AuthError {
  static override readonly type = "CallbackRouteError" as const
  declare readonly type: typeof CallbackRouteError.type
}

/** The OAuth `profile()` mapping threw. */
export class OAuthProfileParseError extends AuthError {
  static override readonly type = "OAuthProfileParseError" as const
  declare readonly type: typeof OAuthProfileParseError.type
}

/** The configured error page itself failed. */
export class ErrorPageLoop extends AuthError {
  static override readonly type = "ErrorPageLoop" as const
  declare readonly type: typeof ErrorPageLoop.type
}

/** An event handler threw. Logged, never fatal. */
export class EventError extends AuthError {
  static override readonly type = "EventError" as const
  declare readonly type: typeof EventError.type
}

/** A `callbackUrl` query parameter or cookie that is not an http(s) URL. */
export class InvalidCallbackUrl extends AuthError {
  static override readonly type = "InvalidCallbackUrl" as const
  declare readonly type: typeof InvalidCallbackUrl.type
}

/** A flow check (state, PKCE, nonce, challenge) failed. */
export class InvalidCheck extends AuthError {
  static override readonly type = "InvalidCheck" as const
  declare readonly type: typeof InvalidCheck.type
}

/** The flow store (e.g. Redis) could not be reached in time. A server problem: `error=Configuration`. */
export class FlowStoreUnavailable extends AuthError {
  static override readonly type = "FlowStoreUnavailable" as const
  declare readonly type: typeof FlowStoreUnavailable.type
}

/** An OAuth provider without an issuer lacks the endpoints it needs. */
export class InvalidEndpoints extends AuthError {
  static override readonly type = "InvalidEndpoints" as const
  declare readonly type: typeof InvalidEndpoints.type
}

/** A provider used in a way its type does not allow. */
export class InvalidProvider extends AuthError {
  static override readonly type = "InvalidProvider" as const
  declare readonly type: typeof InvalidProvider.type
}

/** A session token that could not be decoded. Logged; the session reads as `null`. */
export class JWTSessionError extends AuthError {
  static override readonly type = "JWTSessionError" as const
  declare readonly type: typeof JWTSessionError.type
}

/** A database session or email provider configured without an adapter. */
export class MissingAdapter extends AuthError {
  static override readonly type = "MissingAdapter" as const
  declare readonly type: typeof MissingAdapter.type
}

/** The adapter lacks methods that the enabled flows call. */
export class MissingAdapterMethods extends AuthError {
  static override readonly type = "MissingAdapterMethods" as const
  declare readonly type: typeof MissingAdapterMethods.type
}

/** A credentials provider without `authorize`. */
export class MissingAuthorize extends AuthError {
  static override readonly type = "MissingAuthorize" as const
  declare readonly type: typeof MissingAuthorize.type
}

/** No secret, or one shorter than 32 characters. */
export class MissingSecret extends AuthError {
  static override readonly type = "MissingSecret" as const
  declare readonly type: typeof MissingSecret.type
}

/**
 * An optional package a configured provider needs is not installed (`nodemailer` for email,
 * `@simplewebauthn/server` and `@simplewebauthn/browser` for passkeys). The message names the package
 * and the install command; `cause.packages` lists them. A configuration error: `error=Configuration`.
 */
export class MissingDependency extends AuthError {
  static override readonly type = "MissingDependency" as const
  declare readonly type: typeof MissingDependency.type
}

/** A database session lookup failed. Logged; the session reads as `null`. */
export class SessionTokenError extends AuthError {
  static override readonly type = "SessionTokenError" as const
  declare readonly type: typeof SessionTokenError.type
}

/**
 * A back-channel logout request that was refused: no or a malformed `logout_token`, a bad signature,
 * wrong `iss`/`aud`, too old, replayed, or not a logout token. Answered 400 `{"error":"invalid_request"}`.
 */
export class BackchannelLogoutError extends AuthError {
  static override readonly type = "BackchannelLogoutError" as const
  declare readonly type: typeof BackchannelLogoutError.type
}

/** Sign-out failed to destroy the session. Logged; the cookies are cleared anyway. */
export class SignOutError extends AuthError {
  static override readonly type = "SignOutError" as const
  declare readonly type: typeof SignOutError.type
}

/** The request names no action authchart knows, or uses a method the action does not take. */
export class UnknownAction extends AuthError {
  static override readonly type = "UnknownAction" as const
  declare readonly type: typeof UnknownAction.type
}

/** A session strategy the configured providers cannot use. */
export class UnsupportedStrategy extends AuthError {
  static override readonly type = "UnsupportedStrategy" as const
  declare readonly type: typeof UnsupportedStrategy.type
}

/** The request's host is not trusted: set `trustHost`, `AUTH_TRUST_HOST` or `AUTH_URL`. */
export class UntrustedHost extends AuthError {
  static override readonly type = "UntrustedHost" as const
  declare readonly type: typeof UntrustedHost.type
}

/** An email verification token that is missing, used, expired or for another address. */
export class Verification extends AuthError {
  static override readonly type = "Verification" as const
  declare readonly type: typeof Verification.type
}

/** More than one WebAuthn provider enables conditional UI. */
export class DuplicateConditionalUI extends AuthError {
  static override readonly type = "DuplicateConditionalUI" as const
  declare readonly type: typeof DuplicateConditionalUI.type
}

/** The conditional-UI WebAuthn provider has no form field with `webauthn` autocomplete. */
export class MissingWebAuthnAutocomplete extends AuthError {
  static override readonly type = "MissingWebAuthnAutocomplete" as const
  declare readonly type: typeof MissingWebAuthnAutocomplete.type
}

/** A WebAuthn response failed verification. */
export class WebAuthnVerificationError extends AuthError {
  static override readonly type = "WebAuthnVerificationError" as const
  declare readonly type: typeof WebAuthnVerificationError.type
}

/** An experimental feature used without being enabled in `experimental`. */
export class ExperimentalFeatureNotEnabled extends AuthError {
  static override readonly type = "ExperimentalFeatureNotEnabled" as const
  declare readonly type: typeof ExperimentalFeatureNotEnabled.type
}

/** The server-state port failed while counting a rule that fails closed (password attempts). */
export class RateLimitUnavailable extends AuthError {
  static override readonly type = "RateLimitUnavailable" as const
  declare readonly type: typeof RateLimitUnavailable.type
}
