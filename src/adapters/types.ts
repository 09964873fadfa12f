/**
 * The database adapter port: the Auth.js v5 `Adapter` interface, field for field, so any published
 * `@auth/*-adapter` plugs into authchart and authchart's adapters plug into Auth.js.
 *
 * Every method is optional and may answer synchronously or with a promise. authchart checks at
 * start-up that the methods your enabled flows call are present (`MissingAdapterMethods`) and turns
 * any throw into an `AdapterError`.
 *
 * @example
 * ```ts
 * import type { Adapter } from "authchart/adapters/types"
 *
 * export function MyAdapter(db: Db): Adapter {
 *   return {
 *     async getUser(id) { return (await db.users.find(id)) ?? null },
 *     // ...
 *   }
 * }
 * ```
 *
 * @module
 */
import type { Account, Awaitable, User } from "../types.js"

/**
 * A user as the adapter stores it.
 *
 * `id` is the adapter's primary key. `email` is `""` for a user who signed in without one (some OAuth
 * and WebAuthn sign-ins). `emailVerified` is set when the user signed in through a magic link.
 */
export interface AdapterUser extends User {
  id: string
  email: string
  emailVerified: Date | null
}

/** The provider types that leave an account in the database (credentials never do). */
export type AdapterAccountType = "oauth" | "oidc" | "email" | "webauthn"

/**
 * A user's account with one provider, keyed by `provider` + `providerAccountId`.
 *
 * Besides the key it carries the OAuth token fields the provider returned (`access_token`,
 * `refresh_token`, `expires_at`, `id_token`, `scope`, `token_type`, `session_state`, ...).
 */
export interface AdapterAccount extends Account {
  userId: string
  type: AdapterAccountType
}

/** A database session: the random `sessionToken` the session cookie holds, and its owner and expiry. */
export interface AdapterSession {
  sessionToken: string
  userId: string
  expires: Date
}

/**
 * A magic-link token as stored: `token` is the SHA-256 hex of the emailed token plus the secret, never
 * the emailed token itself. `identifier` is the (normalised) email address.
 */
export interface VerificationToken {
  identifier: string
  expires: Date
  token: string
}

/**
 * A WebAuthn credential (passkey) registered to a user. `credentialID` and `credentialPublicKey` are
 * base64; `transports` is a comma-separated list such as `"internal,hybrid"`.
 */
export interface AdapterAuthenticator {
  credentialID: string
  userId: string
  providerAccountId: string
  counter: number
  credentialBackedUp: boolean
  credentialPublicKey: string
  transports?: string | null
  credentialDeviceType: string
}

/**
 * The storage port for users, accounts, database sessions, magic-link tokens and passkeys (the Auth.js
 * v5 `Adapter` interface).
 *
 * Which methods are needed depends on what you enable: database sessions need the user, account and
 * session methods; the email provider needs `createVerificationToken`, `useVerificationToken`,
 * `getUserByEmail`, `createUser` and `updateUser`; WebAuthn needs `getAccount` and the authenticator
 * methods. `deleteUser` and `unlinkAccount` are never called by authchart: they are for your app.
 */
export interface Adapter {
  /** Stores a new user. authchart passes a random UUID as `id`; an adapter may keep it or assign its own. */
  createUser?(user: AdapterUser): Awaitable<AdapterUser>
  /** The user with this id, or `null`. */
  getUser?(id: string): Awaitable<AdapterUser | null>
  /** The user with this email address, or `null`. */
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>
  /** The user who owns the account `provider` + `providerAccountId`, or `null`. */
  getUserByAccount?(providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">): Awaitable<AdapterUser | null>
  /** Merges the given fields into the user with `id` and returns the result. */
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>
  /** Deletes the user and, with them, their sessions, accounts and authenticators. */
  deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>
  /** Links a provider account to `account.userId`. */
  linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>
  /** Removes the account `provider` + `providerAccountId`. */
  unlinkAccount?(
    providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Promise<void> | Awaitable<AdapterAccount | undefined>
  /** Stores a new database session. */
  createSession?(session: { sessionToken: string; userId: string; expires: Date }): Awaitable<AdapterSession>
  /** The session with this token and its user, or `null`. authchart itself checks `expires`. */
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>
  /** Merges the given fields (in practice a new `expires`) into the session; `null` when there is none. */
  updateSession?(session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">): Awaitable<AdapterSession | null | undefined>
  /** Deletes the session with this token (sign-out). */
  deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>
  /** Stores a magic-link token (already hashed). */
  createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>
  /**
   * Deletes and returns the token, so a link works once; `null` when there is none. `identifier` may be
   * undefined at run time (a link without its `email` parameter).
   */
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>
  /** The account `provider` + `providerAccountId`, or `null`. */
  getAccount?(
    providerAccountId: AdapterAccount["providerAccountId"],
    provider: AdapterAccount["provider"],
  ): Awaitable<AdapterAccount | null>
  /** The authenticator with this credential id, or `null`. */
  getAuthenticator?(credentialID: AdapterAuthenticator["credentialID"]): Awaitable<AdapterAuthenticator | null>
  /** Stores a newly registered authenticator. */
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>
  /** Every authenticator of the user. */
  listAuthenticatorsByUserId?(userId: AdapterAuthenticator["userId"]): Awaitable<AdapterAuthenticator[]>
  /** Stores the signature counter after an authentication; throws for an unknown credential id. */
  updateAuthenticatorCounter?(
    credentialID: AdapterAuthenticator["credentialID"],
    newCounter: AdapterAuthenticator["counter"],
  ): Awaitable<AdapterAuthenticator>
  /**
   * authchart (not in Auth.js): deletes the authenticator with this credential id, so it can no longer
   * sign in; resolves to it, or `null` when there was none. Called when a user deletes a passkey on the
   * account pages (docs/second-factors.md); without it, deleting unlinks the passkey's account only.
   */
  deleteAuthenticator?(credentialID: AdapterAuthenticator["credentialID"]): Awaitable<AdapterAuthenticator | null>
}

/**
 * What authchart's own adapters (`MemoryAdapter`, `RedisAdapter`) offer: every `Adapter` method,
 * always async and returning what it stored or removed, plus `deleteUserSessions`, "sign out
 * everywhere" in one line.
 *
 * @example
 * ```ts
 * const adapter = RedisAdapter(client)
 * // after a password change, or from a "sign out of all devices" button:
 * await adapter.deleteUserSessions(user.id)
 * ```
 */
export interface CompleteAdapter extends Adapter {
  createUser(user: AdapterUser): Promise<AdapterUser>
  getUser(id: string): Promise<AdapterUser | null>
  getUserByEmail(email: string): Promise<AdapterUser | null>
  getUserByAccount(providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">): Promise<AdapterUser | null>
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>
  /** Resolves to the deleted user, or `null` when there was none. */
  deleteUser(userId: string): Promise<AdapterUser | null>
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>
  /** Resolves to the removed account, or `undefined` when there was none. */
  unlinkAccount(providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">): Promise<AdapterAccount | undefined>
  createSession(session: { sessionToken: string; userId: string; expires: Date }): Promise<AdapterSession>
  getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null>
  updateSession(session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">): Promise<AdapterSession | null>
  /** Resolves to the deleted session, or `null` when there was none. */
  deleteSession(sessionToken: string): Promise<AdapterSession | null>
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>
  useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null>
  getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null>
  getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>
  createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator>
  listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]>
  updateAuthenticatorCounter(credentialID: string, newCounter: number): Promise<AdapterAuthenticator>
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>
  /**
   * Deletes every database session of the user ("sign out everywhere") and resolves to how many there
   * were. Browsers still holding one of those session cookies are signed out at their next request.
   * JWT sessions are not affected: they live in the cookie only.
   */
  deleteUserSessions(userId: string): Promise<number>
}

const isoDate = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:[+-][0-2]\d:[0-5]\d|Z)$/

/**
 * Whether `value` is an ISO 8601 date-time string (as `JSON.stringify` writes a `Date`) that parses.
 * Adapters that store JSON use it to turn strings back into `Date`s.
 *
 * @example
 * ```ts
 * isDate("2026-01-02T03:04:05.678Z") // true
 * isDate("yesterday") // false
 * ```
 */
export function isDate(value: unknown): value is string {
  return typeof value === "string" && isoDate.test(value) && !Number.isNaN(Date.parse(value))
}
