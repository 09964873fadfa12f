/**
 * `authchart/adapters/memory`: an in-process adapter on `Map`s, for tests, demos and single-process
 * development. Everything is lost when the process exits; use `RedisAdapter` or a database adapter in
 * production.
 *
 * It behaves like a SQL table set: records stay until deleted, and authchart itself checks `expires`
 * (so fake clocks in tests work). Every read returns a copy: changing a returned object never changes
 * what is stored.
 *
 * @example
 * ```ts
 * import { MemoryAdapter } from "authchart/adapters/memory"
 *
 * const adapter = MemoryAdapter()
 * app.use("/auth/*", ExpressAuth({ adapter, providers: [GitHub] }))
 *
 * // "sign out everywhere":
 * await adapter.deleteUserSessions(user.id)
 * ```
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser, CompleteAdapter, VerificationToken } from "./types.js"

export type { CompleteAdapter } from "./types.js"

/** The given fields without those explicitly set to `undefined` (an update never erases by omission). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>
}

/** What {@link plainCopy} answers for a value it leaves to `structuredClone`. */
const UNCOPIED = Symbol("uncopied")

/**
 * A deep copy of plain data (objects with `Object.prototype` or none, arrays with nothing but their
 * items, dates and primitives, at most 8 levels deep), as `structuredClone` copies it, except that an
 * object referenced twice is copied twice; `UNCOPIED` for anything else.
 */
function plainCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return typeof value === "function" || typeof value === "symbol" ? UNCOPIED : value
  if (depth > 8) return UNCOPIED
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto === Date.prototype) return new Date((value as Date).getTime())
  if (Array.isArray(value)) {
    if (proto !== Array.prototype || Object.keys(value).length !== value.length) return UNCOPIED
    const out: unknown[] = []
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1)
      if (item === UNCOPIED) return UNCOPIED
      out.push(item)
    }
    return out
  }
  if (proto !== Object.prototype && proto !== null) return UNCOPIED
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const field = plainCopy((value as Record<string, unknown>)[key], depth + 1)
    if (field === UNCOPIED) return UNCOPIED
    out[key] = field
  }
  return out
}

/**
 * A deep copy of a record: plain data copied directly (a sixth of `structuredClone`'s CPU for a user or
 * a passkey), anything else (maps, buffers, class instances, deeper or cyclic data) by `structuredClone`.
 */
function copy<T>(value: T): T {
  const out = plainCopy(value, 0)
  return out === UNCOPIED ? structuredClone(value) : (out as T)
}

/** Stores a copy of `value` under a key that must be new (else the adapter's error `taken`); returns another copy. */
function insertNew<K, V>(map: Map<K, V>, key: K, value: V, taken: string): V {
  if (map.has(key)) throw new Error(`MemoryAdapter: ${taken}`)
  const stored = copy(value)
  map.set(key, stored)
  return copy(stored)
}

/** One key per provider and account id: the provider's length first (no `JSON.stringify` per lookup). */
function accountKey(provider: string, providerAccountId: string): string {
  const name = String(provider)
  return `${name.length}:${name}:${providerAccountId}`
}

/**
 * Creates an empty in-memory adapter with every `Adapter` method plus `deleteUserSessions`.
 *
 * - `createUser` keeps the `id` it is given (authchart passes a UUID) or assigns `crypto.randomUUID()`;
 *   a second user with the same non-empty email, or the same id, is rejected.
 * - `useVerificationToken` deletes the token and returns it once; a wrong `identifier` neither
 *   returns nor consumes it; an undefined `identifier` matches by token alone.
 * - `deleteUser` also deletes the user's sessions, accounts and authenticators.
 * - `updateAuthenticatorCounter` throws for an unknown credential id.
 */
export function MemoryAdapter(): CompleteAdapter {
  const users = new Map<string, AdapterUser>()
  const userIdByEmail = new Map<string, string>()
  const accounts = new Map<string, AdapterAccount>()
  const sessions = new Map<string, AdapterSession>()
  const verificationTokens = new Map<string, VerificationToken>()
  const authenticators = new Map<string, AdapterAuthenticator>()
  /** Each user's credential ids, in the order they were created (listing a user's passkeys reads only theirs). */
  const credentialIdsByUser = new Map<string, Set<string>>()

  function claimEmail(email: string | null | undefined, userId: string): void {
    if (!email) return
    const owner = userIdByEmail.get(email)
    if (owner !== undefined && owner !== userId && users.has(owner)) {
      throw new Error("MemoryAdapter: another user already has this email address.")
    }
    userIdByEmail.set(email, userId)
  }

  function releaseEmail(email: string | null | undefined, userId: string): void {
    if (email && userIdByEmail.get(email) === userId) userIdByEmail.delete(email)
  }

  function deleteSessionsOf(userId: string): number {
    let count = 0
    for (const [token, session] of sessions) {
      if (session.userId === userId) {
        sessions.delete(token)
        count++
      }
    }
    return count
  }

  return {
    async createUser(user) {
      const id = user.id || randomUUID()
      if (users.has(id)) throw new Error("MemoryAdapter: a user with this id already exists.")
      const stored: AdapterUser = copy({ ...user, id, emailVerified: user.emailVerified ?? null })
      claimEmail(stored.email, id)
      users.set(id, stored)
      return copy(stored)
    },

    async getUser(id) {
      const user = users.get(id)
      return user ? copy(user) : null
    },

    async getUserByEmail(email) {
      const id = email ? userIdByEmail.get(email) : undefined
      const user = id === undefined ? undefined : users.get(id)
      return user ? copy(user) : null
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(accountKey(provider, providerAccountId))
      const user = account ? users.get(account.userId) : undefined
      return user ? copy(user) : null
    },

    async updateUser(changes) {
      const current = users.get(changes.id)
      if (!current) throw new Error("MemoryAdapter: updateUser found no user with this id.")
      const updated: AdapterUser = copy({ ...current, ...defined(changes), id: current.id })
      if (updated.email !== current.email) {
        claimEmail(updated.email, current.id)
        releaseEmail(current.email, current.id)
      }
      users.set(current.id, updated)
      return copy(updated)
    },

    async deleteUser(userId) {
      const user = users.get(userId)
      users.delete(userId)
      releaseEmail(user?.email, userId)
      deleteSessionsOf(userId)
      for (const [key, account] of accounts) if (account.userId === userId) accounts.delete(key)
      for (const id of credentialIdsByUser.get(userId) ?? []) authenticators.delete(id)
      credentialIdsByUser.delete(userId)
      return user ?? null
    },

    async linkAccount(account) {
      const key = accountKey(account.provider, account.providerAccountId)
      return insertNew(accounts, key, account, "this provider account is already linked.")
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const key = accountKey(provider, providerAccountId)
      const account = accounts.get(key)
      accounts.delete(key)
      return account
    },

    async getAccount(providerAccountId, provider) {
      const account = accounts.get(accountKey(provider, providerAccountId))
      return account ? copy(account) : null
    },

    async createSession(session) {
      const { sessionToken, userId, expires } = session
      return insertNew(sessions, sessionToken, { sessionToken, userId, expires }, "this session token already exists.")
    },

    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken)
      const user = session ? users.get(session.userId) : undefined
      if (!session || !user) return null
      return { session: copy(session), user: copy(user) }
    },

    async updateSession(changes) {
      const current = sessions.get(changes.sessionToken)
      if (!current) return null
      const updated: AdapterSession = copy({ ...current, ...defined(changes) })
      sessions.set(updated.sessionToken, updated)
      return copy(updated)
    },

    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken)
      sessions.delete(sessionToken)
      return session ?? null
    },

    async deleteUserSessions(userId) {
      return deleteSessionsOf(userId)
    },

    async createVerificationToken(verificationToken) {
      const { identifier, expires, token } = verificationToken
      return insertNew(verificationTokens, token, { identifier, expires, token }, "this verification token already exists.")
    },

    async useVerificationToken({ identifier, token }) {
      const stored = verificationTokens.get(token)
      if (!stored) return null
      if (identifier !== undefined && identifier !== null && stored.identifier !== identifier) return null
      verificationTokens.delete(token)
      return stored
    },

    async createAuthenticator(authenticator) {
      const taken = "an authenticator with this credential id already exists."
      const created = insertNew(authenticators, authenticator.credentialID, authenticator, taken)
      const ids = credentialIdsByUser.get(authenticator.userId) ?? new Set<string>()
      credentialIdsByUser.set(authenticator.userId, ids.add(authenticator.credentialID))
      return created
    },

    async getAuthenticator(credentialID) {
      const authenticator = authenticators.get(credentialID)
      return authenticator ? copy(authenticator) : null
    },

    async listAuthenticatorsByUserId(userId) {
      const listed: AdapterAuthenticator[] = []
      for (const id of credentialIdsByUser.get(userId) ?? []) {
        const authenticator = authenticators.get(id)
        // the index is kept with the authenticators; the owner is checked again all the same
        if (authenticator?.userId === userId) listed.push(copy(authenticator))
      }
      return listed
    },

    async updateAuthenticatorCounter(credentialID, newCounter) {
      const current = authenticators.get(credentialID)
      if (!current) throw new Error("MemoryAdapter: updateAuthenticatorCounter found no authenticator with this id.")
      const updated = { ...current, counter: newCounter }
      authenticators.set(credentialID, updated)
      return copy(updated)
    },

    async deleteAuthenticator(credentialID) {
      const current = authenticators.get(credentialID)
      if (!current) return null
      authenticators.delete(credentialID)
      credentialIdsByUser.get(current.userId)?.delete(credentialID)
      return copy(current)
    },
  }
}
