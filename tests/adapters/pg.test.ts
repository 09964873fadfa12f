/**
 * The published Auth.js PostgreSQL adapter (`@auth/pg-adapter`) through the same conformance suite, on
 * a real PostgreSQL started by this file: evidence that the suite is the Auth.js contract and not
 * shaped to authchart's own adapters. The options record where `@auth/pg-adapter` 1.x differs:
 *
 * - ids are `SERIAL` integers: `createUser` ignores the id it is given, and ids come back as numbers;
 * - rows carry an extra serial `id` column (sessions, accounts);
 * - `updateSession`, `deleteSession`, `unlinkAccount` and `deleteUser` return nothing;
 * - `useVerificationToken` needs the identifier (`WHERE identifier = $1`);
 * - the documented schema has no UNIQUE constraints, so duplicates are accepted;
 * - there is no `getAccount` and no authenticator method (no WebAuthn), and no `deleteUserSessions`.
 *
 * Needs the PostgreSQL server binaries (`apt-get install -y postgresql`); fails, never skips, without.
 */
import PostgresAdapter from "@auth/pg-adapter"
import pg from "pg"
import { describe, expect, it } from "vitest"
import type { Adapter } from "../../src/adapters/types.js"
import { PG_ADAPTER_SCHEMA as SCHEMA } from "../support/pg-schema.js"
import { startPostgres } from "../support/postgres.js"
import { runAdapterConformance } from "./conformance.js"

runAdapterConformance(
  "@auth/pg-adapter",
  async () => {
    const server = await startPostgres()
    const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 })
    // pg requires an error listener: idle clients are told "terminating connection" at server shutdown.
    pool.on("error", () => {})
    try {
      await pool.query(SCHEMA)
    } catch (err) {
      await pool.end()
      await server.stop()
      throw err
    }
    return {
      // @auth/pg-adapter types itself against @auth/core's Adapter: the same interface, declared twice.
      adapter: PostgresAdapter(pool) as Adapter,
      async teardown() {
        await pool.end()
        await server.stop()
      },
    }
  },
  {
    keepsUserId: false,
    extraColumns: true,
    returnsRecords: false,
    tokenWithoutIdentifier: false,
    rejectsDuplicates: false,
    webauthn: false,
    deleteUserSessions: false,
  },
)

describe("@auth/pg-adapter quirks the options above stand for", () => {
  it("its Adapter type is assignable to authchart's", () => {
    const typed: (client: pg.Pool) => Adapter = PostgresAdapter
    expect(typed).toBeTypeOf("function")
  })

  it("lacks getAccount, the authenticator methods and deleteUserSessions", () => {
    const adapter = PostgresAdapter(new pg.Pool()) as Record<string, unknown>
    for (const method of ["getAccount", "getAuthenticator", "createAuthenticator", "listAuthenticatorsByUserId", "updateAuthenticatorCounter", "deleteUserSessions"]) {
      expect(adapter[method], method).toBeUndefined()
    }
  })
})
