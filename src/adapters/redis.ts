/**
 * `authchart/adapters/redis`: users, accounts, database sessions, magic-link tokens and passkeys in
 * Redis, over a node-redis client your app creates, connects and closes.
 *
 * Sessions and verification tokens carry a Redis TTL equal to their `expires`, so Redis deletes them
 * when they lapse; a magic-link token is consumed atomically (`GETDEL`), so a link works exactly once
 * even under concurrent clicks. Users, accounts and authenticators never expire.
 *
 * Keys (all under `prefix`, default `"authchart:"`; `:` and `%` inside key parts are %-escaped):
 *
 * | key | value |
 * |---|---|
 * | `user:<id>` | the user, JSON |
 * | `user-by-email:<email>` | the user id |
 * | `account:<provider>:<providerAccountId>` | the account (its `userId` is the user-by-account lookup), JSON |
 * | `user-accounts:<userId>` | set of `<provider>:<providerAccountId>` |
 * | `session:<sessionToken>` | the session, JSON, TTL = expires |
 * | `user-sessions:<userId>` | sorted set of session tokens, scored by expiry (pruned at each sign-in) |
 * | `verification-token:<identifier>:<token>` | the token, JSON, TTL = expires |
 * | `verification-identifier:<token>` | the identifier, TTL = expires (for links without `email`) |
 * | `authenticator:<credentialID>` | the authenticator, JSON |
 * | `user-authenticators:<userId>` | set of credential ids |
 *
 * Dates are stored as ISO 8601 strings and come back as `Date`s (`emailVerified`, `expires`).
 *
 * Every command names one key, so the adapter runs unchanged on Redis Cluster (a node-redis
 * `createCluster` client, whose failovers it follows itself, once per client): removing a user's
 * sessions, accounts and passkeys is one `DEL` per key, sent together. Each command is bounded by `commandTimeout` (default 2 s); a late or failed one rejects, and
 * the runtime reports it as `AdapterError`.
 *
 * @example
 * ```ts
 * import { createClient } from "redis"
 * import { RedisAdapter } from "authchart/adapters/redis"
 *
 * const client = await createClient({ url: process.env.REDIS_URL })
 *   .on("error", (err) => console.error("redis", err))
 *   .connect()
 * const adapter = RedisAdapter(client, { prefix: "myapp:auth:" })
 * app.use("/auth/*", ExpressAuth({ adapter, providers: [GitHub] }))
 *
 * // "sign out everywhere":
 * await adapter.deleteUserSessions(user.id)
 * ```
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import {
  type RedisAdapterClient,
  boundedClient,
  defined,
  fail,
  parsePlain,
  parseUser,
  parseVerificationToken,
  strings,
  text,
  ttl,
} from "./redis-codec.js"
import { adoptRedisClient } from "../stores/redis-client.js"
import { redisKeys } from "./redis-keys.js"
import { redisSessions } from "./redis-sessions.js"
import type { AdapterAccount, AdapterAuthenticator, AdapterUser, CompleteAdapter, VerificationToken } from "./types.js"

export type { CompleteAdapter } from "./types.js"

export type { RedisAdapterClient } from "./redis-codec.js"

/** Options of `RedisAdapter`. */
export interface RedisAdapterOptions {
  /** Prepended to every key. Default `"authchart:"`. Give each app (or test) its own. */
  prefix?: string
  /** Upper bound on one Redis command, in milliseconds. Default 2 000. */
  commandTimeout?: number
}

/**
 * Creates an adapter that keeps its data in Redis through `client` (connected by your app).
 *
 * - `createUser` keeps the `id` it is given (authchart passes a UUID) or assigns `crypto.randomUUID()`;
 *   a second user with the same non-empty email, or the same id, is rejected.
 * - `useVerificationToken` consumes the token with `GETDEL`; a wrong `identifier` neither returns nor
 *   consumes it; an undefined `identifier` matches by token alone.
 * - `deleteUser` also deletes the user's sessions, accounts and authenticators.
 * - `deleteUserSessions(userId)` signs a user out everywhere.
 * - `updateAuthenticatorCounter` throws for an unknown credential id.
 *
 * Each command is atomic on its own; multi-key writes are ordered so that an interrupted one leaves at
 * worst an index entry pointing at nothing, which reads treat as absent.
 */
export function RedisAdapter(redis: RedisAdapterClient, options: RedisAdapterOptions = {}): CompleteAdapter {
  const prefix = options.prefix ?? "authchart:"
  adoptRedisClient(redis)
  const client = boundedClient(redis, options.commandTimeout ?? 2000)
  const keys = redisKeys(prefix)

  async function readUser(id: string): Promise<AdapterUser | null> {
    return parseUser(text(await client.get(keys.user(id))))
  }

  /** Points `email` at `userId`, unless a live user other than `userId` holds it. */
  async function claimEmail(email: string, userId: string): Promise<void> {
    const key = keys.userByEmail(email)
    if ((await client.set(key, userId, { NX: true })) !== null) return
    const owner = text(await client.get(key))
    if (owner !== null && owner !== userId && (await client.get(keys.user(owner))) !== null) {
      fail("another user already has this email address.")
    }
    await client.set(key, userId)
  }

  async function releaseEmail(email: string, userId: string): Promise<void> {
    const key = keys.userByEmail(email)
    if (text(await client.get(key)) === userId) await client.del(key)
  }

  const sessions = redisSessions(client, keys, readUser)

  return {
    async createUser(user) {
      const id = user.id || randomUUID()
      const stored: AdapterUser = { ...user, id, emailVerified: user.emailVerified ?? null }
      const json = JSON.stringify(stored)
      if ((await client.set(keys.user(id), json, { NX: true })) === null) fail("a user with this id already exists.")
      if (stored.email) {
        try {
          await claimEmail(stored.email, id)
        } catch (err) {
          await client.del(keys.user(id))
          throw err
        }
      }
      return parseUser(json) as AdapterUser
    },

    getUser: readUser,

    async getUserByEmail(email) {
      if (!email) return null
      const id = text(await client.get(keys.userByEmail(email)))
      return id === null ? null : readUser(id)
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const ref = keys.accountRef(provider, providerAccountId)
      const account = parsePlain<AdapterAccount>(text(await client.get(keys.account(ref))))
      return account ? readUser(account.userId) : null
    },

    async updateUser(changes) {
      const current = await readUser(changes.id)
      if (!current) fail("updateUser found no user with this id.")
      const updated: AdapterUser = { ...current, ...defined(changes), id: current.id }
      const json = JSON.stringify(updated)
      const emailChanged = updated.email !== current.email
      if (emailChanged && updated.email) await claimEmail(updated.email, current.id)
      if ((await client.set(keys.user(current.id), json, { XX: true })) === null) fail("the user was deleted meanwhile.")
      if (emailChanged && current.email) await releaseEmail(current.email, current.id)
      return parseUser(json) as AdapterUser
    },

    async deleteUser(userId) {
      const user = parseUser(text(await client.getDel(keys.user(userId))))
      if (user?.email) await releaseEmail(user.email, userId)
      await sessions.deleteUserSessions(userId)
      const accountRefs = strings(await client.sMembers(keys.userAccounts(userId)))
      const credentialIDs = strings(await client.sMembers(keys.userAuthenticators(userId)))
      const owned = [
        ...accountRefs.map(keys.account),
        ...credentialIDs.map(keys.authenticator),
        keys.userAccounts(userId),
        keys.userSessions(userId),
        keys.userAuthenticators(userId),
      ]
      await Promise.all(owned.map((key) => client.del(key)))
      return user
    },

    async linkAccount(account) {
      const ref = keys.accountRef(account.provider, account.providerAccountId)
      const json = JSON.stringify(account)
      if ((await client.set(keys.account(ref), json, { NX: true })) === null) fail("this provider account is already linked.")
      await client.sAdd(keys.userAccounts(account.userId), ref)
      return parsePlain<AdapterAccount>(json) as AdapterAccount
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const ref = keys.accountRef(provider, providerAccountId)
      const account = parsePlain<AdapterAccount>(text(await client.getDel(keys.account(ref))))
      if (!account) return undefined
      await client.sRem(keys.userAccounts(account.userId), ref)
      return account
    },

    async getAccount(providerAccountId, provider) {
      const ref = keys.accountRef(provider, providerAccountId)
      return parsePlain<AdapterAccount>(text(await client.get(keys.account(ref))))
    },

    ...sessions,

    async createVerificationToken({ identifier, expires, token }) {
      const json = JSON.stringify({ identifier, expires, token })
      const px = ttl(expires)
      const created = await client.set(keys.verificationToken(identifier, token), json, { PX: px, NX: true })
      if (created === null) fail("this verification token already exists.")
      await client.set(keys.verificationIdentifier(token), identifier, { PX: px })
      return parseVerificationToken(json) as VerificationToken
    },

    async useVerificationToken({ identifier, token }) {
      const given: string | undefined | null = identifier
      const owner = given ?? text(await client.get(keys.verificationIdentifier(token)))
      if (owner === null) return null
      const used = parseVerificationToken(text(await client.getDel(keys.verificationToken(owner, token))))
      if (used) await client.del(keys.verificationIdentifier(token))
      return used
    },

    async createAuthenticator(authenticator) {
      const json = JSON.stringify(authenticator)
      const created = await client.set(keys.authenticator(authenticator.credentialID), json, { NX: true })
      if (created === null) fail("an authenticator with this credential id already exists.")
      await client.sAdd(keys.userAuthenticators(authenticator.userId), authenticator.credentialID)
      return parsePlain<AdapterAuthenticator>(json) as AdapterAuthenticator
    },

    async getAuthenticator(credentialID) {
      return parsePlain<AdapterAuthenticator>(text(await client.get(keys.authenticator(credentialID))))
    },

    async listAuthenticatorsByUserId(userId) {
      const credentialIDs = strings(await client.sMembers(keys.userAuthenticators(userId)))
      const replies = await Promise.all(credentialIDs.map((id) => client.get(keys.authenticator(id))))
      return replies.map((reply) => parsePlain<AdapterAuthenticator>(text(reply))).filter((a): a is AdapterAuthenticator => a !== null)
    },

    async updateAuthenticatorCounter(credentialID, newCounter) {
      const key = keys.authenticator(credentialID)
      const current = parsePlain<AdapterAuthenticator>(text(await client.get(key)))
      if (!current) fail("updateAuthenticatorCounter found no authenticator with this id.")
      const json = JSON.stringify({ ...current, counter: newCounter })
      if ((await client.set(key, json, { XX: true })) === null) fail("the authenticator was deleted meanwhile.")
      return parsePlain<AdapterAuthenticator>(json) as AdapterAuthenticator
    },

    async deleteAuthenticator(credentialID) {
      const deleted = parsePlain<AdapterAuthenticator>(text(await client.getDel(keys.authenticator(credentialID))))
      if (deleted) await client.sRem(keys.userAuthenticators(deleted.userId), credentialID)
      return deleted
    },
  }
}
