/**
 * The vocabulary every flow machine shares: what arrives (events), what it keeps (context), and what it
 * answers (replies). Plain data only: machines never build HTTP, touch cookies or read the clock.
 */

/** Tag of every state that waits for the next HTTP request. Only there is a snapshot persisted. */
export const AWAITING_INPUT = "awaiting-input"

/** A user as a flow carries it: JSON data. */
export interface FlowUser {
  id?: string
  name?: string | null
  email?: string | null
  image?: string | null
  [field: string]: unknown
}

/** An account as a flow carries it: JSON data. */
export interface FlowAccount {
  provider: string
  providerAccountId: string
  type: string
  [field: string]: unknown
}

/** Who the flow has established the user to be. */
export interface Identity {
  user: FlowUser
  account: FlowAccount | null
  profile?: Record<string, unknown>
  isNewUser?: boolean
  /** WebAuthn registration: the verified credential, stored once the user is known. */
  authenticator?: FlowAuthenticator
}

/** A WebAuthn credential as a flow carries it: JSON data, binary fields in base64. */
export interface FlowAuthenticator {
  credentialID: string
  providerAccountId: string
  credentialPublicKey: string
  counter: number
  credentialBackedUp: boolean
  credentialDeviceType: string
  transports?: string | null
}

/** What the runtime turns into one HTTP response. `cookies` is opaque to machines. */
export type Reply =
  | { type: "redirect"; url: string; cookies?: readonly unknown[] }
  | { type: "page"; page: string; data?: Record<string, unknown> }
  | { type: "json"; body: unknown; status?: number }

/** How a flow ended. A failure carries the error as thrown by an effect (an `AuthError`). */
export type FlowOutput = { ok: true; reply: Reply } | { ok: false; error: unknown }

/** What the signIn gate decided: go on, or redirect somewhere else without a session. */
export type GateResult = { allow: true } | { allow: false; redirect: string }

/** What issuing a session produced: where to go, and the cookies to set (opaque to machines). */
export interface Issued {
  redirect: string
  cookies: readonly unknown[]
}

/** Input every flow starts with. `now` is milliseconds since the epoch. */
export interface FlowInput {
  provider: string
  now: number
  /** Where to go after sign-in, resolved when the flow started. */
  callbackUrl?: string
}

/**
 * What an OAuth / OIDC sign-in keeps between the redirect to the provider and the callback: the checks
 * (RFC 9700: `state`, PKCE verifier, OIDC `nonce`), the exact redirect URI, and the issuer it is bound to.
 * Sealed with the snapshot; never in a URL except `state`.
 */
export interface OAuthPending {
  state: string
  codeVerifier: string
  nonce: string | null
  redirectUri: string
  issuer: string
}

/** The authorization request: where to send the browser, and what to keep for the callback. */
export interface AuthorizationStart {
  url: string
  pending: OAuthPending
}
