/**
 * The adapter backends the end-to-end suites (database sessions and OAuth, email, passkeys) and the
 * conformance suite run against, each on a real server or file: memory; authchart's Redis adapter on a
 * real redis-server; and the published Auth.js adapters unchanged: `@auth/pg-adapter`,
 * `@auth/drizzle-adapter` on PostgreSQL and on SQLite (better-sqlite3, a file), `@auth/kysely-adapter`
 * on PostgreSQL, `@auth/unstorage-adapter` with unstorage's Redis driver. The PostgreSQL ones share the
 * run's one server, a database each (`pg-databases.ts`).
 *
 * An entry is everything a suite needs: how to start it and how its adapter departs from the full
 * contract (`quirks`, the conformance options; `noPasskeys()` reads the WebAuthn gap from them).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DrizzleAdapter } from "@auth/drizzle-adapter"
import { KyselyAdapter, type Database } from "@auth/kysely-adapter"
import PostgresAdapter from "@auth/pg-adapter"
import { UnstorageAdapter } from "@auth/unstorage-adapter"
import BetterSqlite from "better-sqlite3"
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres"
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3"
import { Kysely, PostgresDialect } from "kysely"
import { createStorage } from "unstorage"
import redisDriver from "unstorage/drivers/redis"
import type { Adapter } from "../../src/adapters/types.js"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { RedisAdapter } from "../../src/adapters/redis.js"
import type { ConformanceOptions } from "../adapters/conformance.js"
import { pgCreateStatements, pgTables, sqliteCreateStatements, sqliteTables } from "./drizzle-schema.js"
import { createKyselyTables } from "./kysely-schema.js"
import { openDatabase } from "./pg-databases.js"
import { PG_ADAPTER_SCHEMA } from "./pg-schema.js"
import { connectClient, startRedis } from "./redis-server.js"

export interface BackendSetup {
  adapter: Adapter
  teardown(): Promise<void>
}

export interface Backend {
  readonly name: string
  /** Where the adapter departs from the full contract; the conformance suite's options. */
  readonly quirks: ConformanceOptions
  /** Starts what the backend needs (schema included) and returns a fresh adapter. */
  setup(): Promise<BackendSetup>
  /** A fresh adapter without setup (memory only). */
  make?(): Adapter
}

/** Why passkeys cannot run on a backend (its adapter lacks the WebAuthn methods); undefined when they can. */
export function noPasskeys(backend: Backend): string | undefined {
  return backend.quirks.webauthn === false ? "the adapter has no getAccount and no authenticator methods" : undefined
}

/**
 * What every published Auth.js adapter here does short of the full contract: `createUser` draws its own
 * id, the update/delete methods return nothing, `useVerificationToken` needs the identifier, and there
 * is no `deleteUserSessions`.
 */
const AUTHJS_ADAPTER: ConformanceOptions = {
  keepsUserId: false,
  returnsRecords: false,
  tokenWithoutIdentifier: false,
  deleteUserSessions: false,
}

/** Runs `start` with the resources it opened; closes them if it throws. */
async function guarded(close: () => Promise<void>, start: () => Promise<Adapter>): Promise<BackendSetup> {
  try {
    return { adapter: await start(), teardown: close }
  } catch (err) {
    await close()
    throw err
  }
}

export const memoryBackend: Backend = {
  name: "memory",
  quirks: {},
  async setup() {
    return { adapter: MemoryAdapter(), teardown: async () => {} }
  },
  make: () => MemoryAdapter(),
}

export const redisBackend: Backend = {
  name: "redis",
  quirks: {},
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

/**
 * `@auth/pg-adapter` 1.x: SERIAL ids (ids come back as numbers), an extra serial `id` column on sessions
 * and accounts, no UNIQUE constraints in the documented schema, no `getAccount` or authenticator methods.
 */
export const pgBackend: Backend = {
  name: "@auth/pg-adapter",
  quirks: { ...AUTHJS_ADAPTER, extraColumns: true, rejectsDuplicates: false, webauthn: false },
  async setup() {
    const db = await openDatabase("pg_adapter")
    return guarded(db.close, async () => {
      await db.pool.query(PG_ADAPTER_SCHEMA)
      // @auth/pg-adapter types itself against @auth/core's Adapter: the same interface, declared twice.
      return PostgresAdapter(db.pool) as Adapter
    })
  },
}

/** `@auth/drizzle-adapter` 1.x on the documented tables: the full contract but for the common gaps. */
export const drizzlePgBackend: Backend = {
  name: "@auth/drizzle-adapter (PostgreSQL)",
  quirks: AUTHJS_ADAPTER,
  async setup() {
    const db = await openDatabase("drizzle")
    return guarded(db.close, async () => {
      for (const statement of await pgCreateStatements()) await db.pool.query(statement)
      return DrizzleAdapter(drizzlePg(db.pool), pgTables) as Adapter
    })
  },
}

export const drizzleSqliteBackend: Backend = {
  name: "@auth/drizzle-adapter (SQLite)",
  quirks: AUTHJS_ADAPTER,
  async setup() {
    const dir = await mkdtemp(join(tmpdir(), "authchart-sqlite-"))
    const file = new BetterSqlite(join(dir, "auth.db"))
    const close = async () => {
      file.close()
      await rm(dir, { recursive: true, force: true })
    }
    return guarded(close, async () => {
      file.pragma("foreign_keys = ON")
      for (const statement of await sqliteCreateStatements()) file.exec(statement)
      return DrizzleAdapter(drizzleSqlite(file), sqliteTables) as Adapter
    })
  },
}

/**
 * `@auth/kysely-adapter` 1.x with the documented PostgreSQL schema: sessions and accounts carry a uuid
 * `id` column; accounts have no UNIQUE key, so a second link of one provider account is accepted;
 * `updateSession` of an unknown token throws ("no result"); no `getAccount` or authenticator methods.
 */
export const kyselyBackend: Backend = {
  name: "@auth/kysely-adapter (PostgreSQL)",
  quirks: { ...AUTHJS_ADAPTER, extraColumns: true, rejectsDuplicates: false, webauthn: false, updatesUnknownSession: false },
  async setup() {
    const db = await openDatabase("kysely")
    // Kysely ends the pool it was given when it is destroyed.
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: db.pool }) })
    return guarded(
      () => kysely.destroy(),
      async () => {
        await createKyselyTables(kysely)
        return KyselyAdapter(kysely) as Adapter
      },
    )
  },
}

/**
 * `@auth/unstorage-adapter` 2.x on unstorage's Redis driver: plain get/set with secondary keys, no
 * transactions. Accounts carry an `id` ("provider:providerAccountId"); nothing is unique (a second user
 * with one email, or a second link, overwrites the index); `useVerificationToken` reads then deletes,
 * so concurrent uses of one link can all succeed; after an email change the old address still finds
 * the user; `deleteUser` throws for a user without an account or a session, and removes only the last
 * one of each and no authenticator.
 */
export const unstorageBackend: Backend = {
  name: "@auth/unstorage-adapter (Redis)",
  quirks: {
    ...AUTHJS_ADAPTER,
    extraColumns: true,
    rejectsDuplicates: false,
    atomicTokenUse: false,
    emailLookupFollowsUpdate: false,
    deleteUserComplete: false,
  },
  async setup() {
    const server = await startRedis()
    const storage = createStorage({ driver: redisDriver({ url: server.url, base: "authjs" }) })
    const close = async () => {
      await storage.dispose()
      await server.stop()
    }
    return guarded(close, async () => UnstorageAdapter(storage) as Adapter)
  },
}

/** The Auth.js adapters from npm, used unchanged. */
export const publishedBackends: Backend[] = [pgBackend, drizzlePgBackend, drizzleSqliteBackend, kyselyBackend, unstorageBackend]

export const backends: Backend[] = [memoryBackend, redisBackend, ...publishedBackends]
