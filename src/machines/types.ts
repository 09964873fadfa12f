/**
 * The vocabulary every flow machine shares: what arrives (events), what it keeps (context), and what it
 * answers (replies). Plain data only: machines never build HTTP, touch cookies or read the clock.
 */

/**
 * Tag of every state that waits for the next HTTP request. Only there (or at a final state) is a run
 * persisted, and only there may the next request's event arrive.
 *
 * @example
 * ```ts
 * import { AWAITING_INPUT } from "authchart/flow"
 * const awaitingCode = { tags: [AWAITING_INPUT], on: { CODE: "checking" } }
 * ```
 */
export const AWAITING_INPUT = "awaiting-input"

/**
 * A user as a flow carries it: JSON data.
 * @example const user: FlowUser = { id: "7", email: "ada@example.com", name: "Ada" }
 */
export interface FlowUser {
  id?: string
  name?: string | null
  email?: string | null
  image?: string | null
  [field: string]: unknown
}

/**
 * An account as a flow carries it: JSON data.
 * @example const account: FlowAccount = { provider: "email-code", providerAccountId: "ada@example.com", type: "email" }
 */
export interface FlowAccount {
  provider: string
  providerAccountId: string
  /** The kind of provider the account is with (`ProviderType`). */
  type: "oauth" | "oidc" | "email" | "credentials" | "webauthn"
  /** The token response's other fields: JSON, as Auth.js' `Account` (so an `@auth/*-adapter` takes it). */
  [field: string]: FlowJson | undefined
}

/** A JSON value (a token response field). */
export type FlowJson = string | number | boolean | null | FlowJson[] | { [key: string]: FlowJson | undefined }

/**
 * Who the flow has established the user to be: what an effect answers once it knows (the input of the
 * sign-in tail, set as `context.identity` before `target: "gate"`).
 *
 * @example
 * ```ts
 * import type { Identity } from "authchart/flow"
 * const identity: Identity = { user: { email }, account: { provider: "email-code", providerAccountId: email, type: "email" } }
 * ```
 */
export interface Identity {
  user: FlowUser
  account: FlowAccount | null
  profile?: Record<string, unknown>
  isNewUser?: boolean
  /** WebAuthn registration: the verified credential, stored once the user is known. */
  authenticator?: FlowAuthenticator
  /**
   * Credentials sign-in: the submitted fields, for the `signIn` callback only. The gate drops them, so
   * they never rest in a snapshot.
   */
  credentials?: Record<string, unknown>
  /**
   * OIDC sign-in: the `sid` claim of the validated ID token (the provider's session), so a back-channel
   * logout naming that `sid` ends the session this sign-in issues.
   */
  sid?: string
}

/**
 * A WebAuthn credential as a flow carries it: JSON data, binary fields in base64.
 * @example const registered: Identity = { user, account, authenticator: { credentialID, providerAccountId, credentialPublicKey, counter: 0, credentialBackedUp: false, credentialDeviceType: "singleDevice" } }
 */
export interface FlowAuthenticator {
  credentialID: string
  providerAccountId: string
  credentialPublicKey: string
  counter: number
  credentialBackedUp: boolean
  credentialDeviceType: string
  transports?: string | null
}

/**
 * What the runtime turns into one HTTP response, set as `context.reply` by a state that rests (or in the
 * output of a final one). A `page` names one of the flow's `pages`, which the runtime renders with the
 * CSRF token and the form's target. `cookies` is opaque to machines.
 *
 * @example
 * ```ts
 * import type { Reply } from "authchart/flow"
 * const askForCode: Reply = { type: "page", page: "code", data: { email: "a@example.com" } }
 * const toProvider: Reply = { type: "redirect", url: "https://idp.example/authorize?…" }
 * ```
 */
export type Reply =
  | { type: "redirect"; url: string; cookies?: readonly unknown[] }
  | { type: "page"; page: string; data?: Record<string, unknown> }
  | { type: "json"; body: unknown; status?: number }

/**
 * How a flow ended (its machine's output). A failure carries the error as thrown by an effect (an `AuthError`).
 * @example const sent: FlowOutput = { ok: true, reply: { type: "redirect", url: verifyRequestUrl } }
 */
export type FlowOutput = { ok: true; reply: Reply } | { ok: false; error: unknown }

/**
 * What the signIn gate decided: go on, or redirect somewhere else without a session.
 * @example const verdict: GateResult = await askSignIn(ctx, { user, account })
 */
export type GateResult = { allow: true } | { allow: false; redirect: string }

/**
 * What issuing a session produced: where to go, and the cookies to set (opaque to machines).
 * @example onDone: { target: "done", actions: assign({ output: ({ event }) => ({ ok: true, reply: { type: "redirect", url: event.output.redirect, cookies: event.output.cookies } }) }) }
 */
export interface Issued {
  redirect: string
  cookies: readonly unknown[]
}

/**
 * Input every flow starts with. `now` is milliseconds since the epoch.
 * @example initialTransition(machine, { provider: "email-code", now: Date.now() } satisfies FlowInput)
 */
export interface FlowInput {
  provider: string
  now: number
}
