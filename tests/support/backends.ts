/**
 * The adapter backends the end-to-end suites run against, each started for real on loopback: memory,
 * authchart's Redis adapter on a real redis-server, and the published `@auth/pg-adapter` on a real
 * PostgreSQL.
 */
import PostgresAdapter from "@auth/pg-adapter"
import pg from "pg"
import type { Adapter } from "../../src/adapters/types.js"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { RedisAdapter } from "../../src/adapters/redis.js"
import { PG_ADAPTER_SCHEMA } from "./pg-schema.js"
import { startPostgres } from "./postgres.js"
import { connectClient, startRedis } from "./redis-server.js"

export interface Backend {
  readonly name: string
  /** Starts what the backend needs and returns a fresh adapter. */
  setup(): Promise<{ adapter: Adapter; teardown(): Promise<void> }>
  /** A fresh adapter without setup (memory only). */
  make?(): Adapter
}

export const memoryBackend: Backend = {
  name: "memory",
  async setup() {
    return { adapter: MemoryAdapter(), teardown: async () => {} }
  },
  make: () => MemoryAdapter(),
}

export const redisBackend: Backend = {
  name: "redis",
  async setup() {
    const server = await startRedis()
    const client = await connectClient(server.url)
    return {
      adapter: RedisAdapter(client, { prefix: "e2e:" }),
      async teardown() {
        client.destroy()
        await server.stop()
      },
    }
  },
}

export const pgBackend: Backend = {
  name: "@auth/pg-adapter",
  async setup() {
    const server = await startPostgres()
    const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 })
    // pg requires an error listener: idle clients are told "terminating connection" at server shutdown.
    pool.on("error", () => {})
    await pool.query(PG_ADAPTER_SCHEMA)
    return {
      adapter: PostgresAdapter(pool) as Adapter,
      async teardown() {
        await pool.end()
        await server.stop()
      },
    }
  },
}

export const backends: Backend[] = [memoryBackend, redisBackend, pgBackend]
