/**
 * The Redis adapter's key layout (the table in redis.ts): one function per kind of record, each key
 * under the app's prefix with its parts %-escaped, so every command names exactly one key.
 */
import { part } from "./redis-codec.js"

/** The adapter's keys under `prefix`. */
export function redisKeys(prefix: string) {
  return {
    user: (id: string) => `${prefix}user:${part(id)}`,
    userByEmail: (email: string) => `${prefix}user-by-email:${part(email)}`,
    accountRef: (provider: string, providerAccountId: string) => `${part(provider)}:${part(providerAccountId)}`,
    account: (ref: string) => `${prefix}account:${ref}`,
    userAccounts: (userId: string) => `${prefix}user-accounts:${part(userId)}`,
    session: (token: string) => `${prefix}session:${part(token)}`,
    userSessions: (userId: string) => `${prefix}user-sessions:${part(userId)}`,
    verificationToken: (identifier: string, token: string) => `${prefix}verification-token:${part(identifier)}:${part(token)}`,
    verificationIdentifier: (token: string) => `${prefix}verification-identifier:${part(token)}`,
    authenticator: (credentialID: string) => `${prefix}authenticator:${part(credentialID)}`,
    userAuthenticators: (userId: string) => `${prefix}user-authenticators:${part(userId)}`,
  }
}

/** The key functions of one adapter. */
export type RedisKeys = ReturnType<typeof redisKeys>
