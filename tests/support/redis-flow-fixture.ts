/**
 * `RedisFlowStore` as a subject of the flow-store conformance suite (tests/flow-store-conformance.ts),
 * over any connected node-redis client: one redis-server (`createClient`) or Redis Cluster
 * (`createCluster`). The tamperings reach into Redis the way an attacker with a copied cookie, or with
 * write access to Redis, would: unknown, malformed and swapped ids, altered or foreign envelopes.
 */
import { randomBytes } from "node:crypto"
import type { FlowStore } from "../../src/index.js"
import { RedisFlowStore, type RedisFlowStoreClient, RedisServerState, type RedisServerStateClient } from "../../src/stores/redis.js"
import { type FlowStoreUnderTest, type Tamper, confirmClient, startConfirm } from "../flow-store-conformance.js"
import { tamperJwe } from "../helpers.js"

/** The commands the fixture sends itself (besides the store's and the port's). */
export type FixtureRedisClient = RedisFlowStoreClient &
  RedisServerStateClient & {
    get(key: string): Promise<string | null>
    set(key: string, value: string, options: { PX: number }): Promise<unknown>
  }

/** A flow sealed under a secret this app does not know (a forgery): its cookie, as `store` wrote it. */
export async function foreignCookie(store: FlowStore): Promise<string> {
  const { client } = confirmClient(store, { secret: "someone-elses-secret-0123456789abcdef" })
  return (await startConfirm(client)).cookie
}

export const REDIS_TAMPERINGS = [
  "an unknown id",
  "a malformed id",
  "the sealed envelope sent as the cookie",
  "the stored envelope altered",
  "the stored envelope sealed with another secret",
  "another provider's envelope under this id",
] as const

/** The suite's subject: `RedisFlowStore` and `RedisServerState` over the client `connect` gives. */
export function redisFlowStoreUnderTest(
  name: string,
  connect: () => Promise<{ redis: FixtureRedisClient; teardown(): Promise<void> }>,
): FlowStoreUnderTest {
  return {
    name,
    tamperings: REDIS_TAMPERINGS,
    async make() {
      const { redis, teardown } = await connect()
      const prefix = "conformance:"
      const store = RedisFlowStore(redis, { prefix })
      const keyOf = (cookieName: string, id: string) => `${prefix}${cookieName}:${id}`
      const stored = async (cookieName: string, id: string) => (await redis.get(keyOf(cookieName, id))) as string
      const tamper: Record<(typeof REDIS_TAMPERINGS)[number], Tamper> = {
        "an unknown id": async () => randomBytes(16).toString("base64url"),
        "a malformed id": async ({ value }) => `${value.slice(0, 21)}*`,
        "the sealed envelope sent as the cookie": async ({ name, value }) => stored(name, value),
        "the stored envelope altered": async ({ name, value }) => {
          await redis.set(keyOf(name, value), tamperJwe(await stored(name, value)), { PX: 60_000 })
          return value
        },
        "the stored envelope sealed with another secret": async ({ name, value }) => {
          const forged = await foreignCookie(store)
          await redis.set(keyOf(name, value), await stored(name, forged), { PX: 60_000 })
          return value
        },
        "another provider's envelope under this id": async ({ name, value }) => {
          const { client } = confirmClient(store)
          const csrfToken = await client.csrf()
          await client.send("/auth/callback/other", { form: { csrfToken, password: "pw" } })
          const otherId = client.jar.get("authchart.flow.other") as string
          await redis.set(keyOf(name, value), await stored("authchart.flow.other", otherId), { PX: 60_000 })
          return value
        },
      }
      return { store, serverState: RedisServerState(redis, { prefix: "conformance-state:" }), tamper, teardown }
    },
  }
}
