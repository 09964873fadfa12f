/** Callbacks and events. Part of the public types, re-exported by `authchart`. */
import type { AdapterSession, AdapterUser } from "../adapters/types.js"
import type { Account, Awaitable, DefaultSession, JWT, Profile, Session, User } from "../types.js"
import type { RateLimitedEvent } from "./rate-limit.js"

/**
 * The arguments of the `session` callback: Auth.js' parameter type, so a callback written for Auth.js
 * compiles unchanged. What arrives depends on the session strategy:
 * - `jwt`: `{ session, token }`; `session.expires` is an ISO string. On an update (`POST /session`)
 *   also `trigger: "update"` and `newSession` (the posted `data`).
 * - `database`: `{ session, user, newSession }`, no `token`; `session` is the adapter's session (its
 *   `expires` a `Date`, `sessionToken`, `userId`) plus `user`. On an update also `trigger: "update"`, and
 *   `newSession` holds the posted `data`.
 *
 * @example
 * ```ts
 * session({ session, token, user }) {
 *   return { ...session, user: { ...session.user, id: token ? token.sub : user.id } }
 * }
 * ```
 */
export type SessionCallbackParams = ({
  /** Database strategy: the adapter's session plus its user. */
  session: { user: AdapterUser } & AdapterSession
  /** Database strategy: the session's user, as the adapter returned it. */
  user: AdapterUser
} & {
  /** JWT strategy: the default session built from the token. */
  session: Session
  /** JWT strategy: the decoded session token (after the `jwt` callback). */
  token: JWT
}) & {
  /** The `data` of an update (`POST /session`): whatever the client sent, typed `any` as in Auth.js. */
  // biome-ignore lint/suspicious/noExplicitAny: Auth.js' type, so `newSession.name` in an Auth.js callback compiles unchanged
  newSession: any
  trigger?: "update"
}

/**
 * The arguments of the `jwt` callback, as Auth.js types them (so its callbacks compile unchanged):
 * `user`, `account` and `profile` arrive only at sign-in (`trigger` `"signIn"` or `"signUp"`), although
 * `user` is typed as always present; `session` is the `data` of an update (`trigger: "update"`).
 */
export interface JwtCallbackParams {
  token: JWT
  user: User | AdapterUser
  account?: Account | null
  profile?: Profile
  trigger?: "signIn" | "signUp" | "update"
  isNewUser?: boolean
  // biome-ignore lint/suspicious/noExplicitAny: Auth.js' type, so `session?.name` in an Auth.js callback compiles unchanged
  session?: any
}

/** `config.callbacks`, as in Auth.js: `signIn`, `redirect`, `jwt` and `session`. */
export interface CallbacksOptions {
  /**
   * Decide whether a user may sign in: `true` to go on, `false` for `AccessDenied`, or a URL to
   * redirect to instead. A throw is `AccessDenied` too (an `AuthError` is kept as it is).
   */
  signIn?: (params: {
    user: User
    account: Account | null
    profile?: Profile
    email?: { verificationRequest?: boolean }
    credentials?: Record<string, unknown>
  }) => Awaitable<boolean | string>
  /** Where to send the user after sign-in or sign-out. Default: same origin only. */
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>
  /** Shape what `/session` and `getSession` return. See {@link SessionCallbackParams} for the arguments. */
  session?: (params: SessionCallbackParams) => Awaitable<Session | DefaultSession>
  /** Shape the session token. Return `null` to sign the user out. */
  jwt?: (params: JwtCallbackParams) => Awaitable<JWT | null>
}

/** `config.events`: told after the fact, their result ignored; a throw is logged as `EventError`. */
export interface EventCallbacks {
  signIn?: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>
  signOut?: (message: { token?: JWT | null; session?: unknown }) => Awaitable<void>
  createUser?: (message: { user: User }) => Awaitable<void>
  updateUser?: (message: { user: User }) => Awaitable<void>
  linkAccount?: (message: { user: User; account: Account; profile: User }) => Awaitable<void>
  session?: (message: { session: Session; token?: JWT }) => Awaitable<void>
  /**
   * A rate limit started refusing (once per lockout, not per refused request). `account` is the
   * identifier's keyed hash, never the identifier itself.
   */
  rateLimited?: (message: RateLimitedEvent) => Awaitable<void>
  /** authchart: an account was unlinked from its user (`unlinkAccount`, `POST /auth/unlink-account/<provider>`). */
  unlinkAccount?: (message: { user: User; account: Account }) => Awaitable<void>
  /**
   * authchart: a recovery code signed the user in (`recoveryCodeStep`, docs/security.md "Recovery
   * codes"); `remaining` is how many unused codes the user has left. Tell the user (someone else may
   * hold their codes) and offer new codes when few are left.
   */
  recoveryCodeUsed?: (message: { user: User; remaining: number }) => Awaitable<void>
}
