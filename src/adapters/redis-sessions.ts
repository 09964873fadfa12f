/**
 * The Redis adapter's database sessions: a session record with a TTL equal to its expiry, and each
 * user's sorted set of session tokens (scored by expiry, pruned at each sign-in), for "sign out
 * everywhere" and for deleting a user.
 */
import { type RedisAdapterClient, fail, parseSession, strings, text, ttl } from "./redis-codec.js"
import type { RedisKeys } from "./redis-keys.js"
import type { AdapterSession, AdapterUser, CompleteAdapter } from "./types.js"

type SessionMethods = Pick<
  CompleteAdapter,
  "createSession" | "getSessionAndUser" | "updateSession" | "deleteSession" | "deleteUserSessions"
>

/** The session methods of an adapter over `client`, reading users with `readUser`. */
export function redisSessions(
  client: RedisAdapterClient,
  keys: RedisKeys,
  readUser: (id: string) => Promise<AdapterUser | null>,
): SessionMethods {
  async function deleteSessionsOf(userId: string): Promise<number> {
    const index = keys.userSessions(userId)
    const tokens = strings(await client.zRange(index, 0, -1))
    if (tokens.length === 0) return 0
    const removed = await Promise.all(tokens.map((token) => client.del(keys.session(token))))
    await client.zRem(index, tokens)
    return removed.reduce((sum: number, n) => sum + Number(n), 0)
  }

  return {
    async createSession({ sessionToken, userId, expires }) {
      const json = JSON.stringify({ sessionToken, userId, expires })
      const created = await client.set(keys.session(sessionToken), json, { PX: ttl(expires), NX: true })
      if (created === null) fail("this session token already exists.")
      const index = keys.userSessions(userId)
      await client.zAdd(index, { score: new Date(expires).getTime(), value: sessionToken })
      await client.zRemRangeByScore(index, "-inf", Date.now())
      return parseSession(json) as AdapterSession
    },

    async getSessionAndUser(sessionToken) {
      const session = parseSession(text(await client.get(keys.session(sessionToken))))
      const user = session ? await readUser(session.userId) : null
      return session && user ? { session, user } : null
    },

    async updateSession(changes) {
      const key = keys.session(changes.sessionToken)
      const current = parseSession(text(await client.get(key)))
      if (!current) return null
      const updated: AdapterSession = {
        sessionToken: current.sessionToken,
        userId: changes.userId ?? current.userId,
        expires: changes.expires ?? current.expires,
      }
      const json = JSON.stringify(updated)
      if ((await client.set(key, json, { PX: ttl(updated.expires), XX: true })) === null) return null
      if (updated.userId !== current.userId) await client.zRem(keys.userSessions(current.userId), current.sessionToken)
      await client.zAdd(keys.userSessions(updated.userId), {
        score: new Date(updated.expires).getTime(),
        value: updated.sessionToken,
      })
      return parseSession(json)
    },

    async deleteSession(sessionToken) {
      const session = parseSession(text(await client.getDel(keys.session(sessionToken))))
      if (session) await client.zRem(keys.userSessions(session.userId), sessionToken)
      return session
    },

    deleteUserSessions: deleteSessionsOf,
  }
}
