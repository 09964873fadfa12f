/**
 * The shape of a WebAuthn (passkey) provider: Auth.js' `WebAuthnConfig`, minus what authchart does
 * itself (it serves the browser script, so there is no `simpleWebAuthnBrowserVersion`). The option
 * objects are passed to `@simplewebauthn/server`; they are typed here without importing it, so apps
 * that never use passkeys need not install it.
 */
import type { Adapter } from "../adapters/types.js"
import type { Awaitable, CommonProviderOptions, CredentialInput, User } from "../types.js"

/** The relying party (your site): `id` is its domain, `origin` the exact origin pages are served from. */
export interface RelayingParty {
  id: string
  name: string
  origin: string
}

/** Options of `generateAuthenticationOptions` you may set (the RP ID and challenge are authchart's). */
export interface WebAuthnAuthenticationOptions {
  /** Milliseconds the browser waits. Default 300 000 (5 minutes). */
  timeout?: number
  userVerification?: "required" | "preferred" | "discouraged"
  extensions?: Record<string, unknown>
}

/** Options of `generateRegistrationOptions` you may set (RP, user and challenge are authchart's). */
export interface WebAuthnRegistrationOptions {
  /** Milliseconds the browser waits. Default 300 000 (5 minutes). */
  timeout?: number
  attestationType?: "direct" | "enterprise" | "none"
  authenticatorSelection?: {
    authenticatorAttachment?: "platform" | "cross-platform"
    residentKey?: "discouraged" | "preferred" | "required"
    requireResidentKey?: boolean
    userVerification?: "required" | "preferred" | "discouraged"
  }
  extensions?: Record<string, unknown>
  supportedAlgorithmIDs?: number[]
  preferredAuthenticatorType?: "securityKey" | "localDevice" | "remoteDevice"
}

/** Options of `verifyAuthenticationResponse` / `verifyRegistrationResponse` you may set. */
export interface WebAuthnVerifyOptions {
  /** Refuse responses whose authenticator did not verify the user (PIN, biometrics). */
  requireUserVerification?: boolean
  requireUserPresence?: boolean
  supportedAlgorithmIDs?: number[]
}

/** What `getUserInfo` answers: a known user, a new one (no id yet), or nobody. */
export type WebAuthnUserInfo = { user: User; exists: true } | { user: Omit<User, "id">; exists: false }

/** Input of `getUserInfo`. */
export interface GetUserInfoParams {
  /** The fields the options request carried (the sign-in form's `formFields`, e.g. `email`). */
  params: Readonly<Record<string, string>>
  /** The configured adapter. */
  adapter: Adapter
  request: Request
}

/**
 * Who the options request is for when nobody is signed in. Default: the `email` field, looked up
 * with `getUserByEmail` (`exists: true` when found, a new user otherwise), or `null` without one.
 */
export type GetUserInfo = (params: GetUserInfoParams) => Awaitable<WebAuthnUserInfo | null>

/** Options of `WebAuthn()` (`authchart/providers/webauthn`) and `Passkey()` (`authchart/providers/passkey`): every field optional. */
export interface WebAuthnUserConfig {
  id?: string
  name?: string
  /** Your site. Default: the auth URL's hostname, host and origin. Arrays: the first entry is used. */
  relayingParty?: { id?: string | string[]; name?: string | string[]; origin?: string | string[] }
  /** Offer passkeys in the email field's autofill (conditional UI). At most one provider. Default true. */
  enableConditionalUI?: boolean
  /** Fields of the built-in form; one needs `webauthn` in its `autocomplete` for conditional UI. */
  formFields?: Record<string, CredentialInput>
  authenticationOptions?: WebAuthnAuthenticationOptions
  registrationOptions?: WebAuthnRegistrationOptions
  verifyAuthenticationOptions?: WebAuthnVerifyOptions
  verifyRegistrationOptions?: WebAuthnVerifyOptions
  getUserInfo?: GetUserInfo
}

/** A WebAuthn (passkey) provider as the config holds it. */
export interface WebAuthnConfig extends CommonProviderOptions, Omit<WebAuthnUserConfig, "id" | "name"> {
  type: "webauthn"
}
