/**
 * The published Auth.js PostgreSQL adapter (`@auth/pg-adapter`) through the same conformance suite, on
 * a real PostgreSQL started by this file (`pgBackend` in tests/support/backends.ts): evidence that the
 * suite is the Auth.js contract and not shaped to authchart's own adapters. Its quirks record where
 * `@auth/pg-adapter` 1.x differs:
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
import { pgBackend } from "../support/backends.js"
import { runAdapterConformance } from "./conformance.js"

runAdapterConformance(pgBackend.name, () => pgBackend.setup(), pgBackend.quirks)

describe("@auth/pg-adapter quirks its backend entry records", () => {
  it("its Adapter type is assignable to authchart's", () => {
    const typed: (client: pg.Pool) => Adapter = PostgresAdapter
    expect(typed).toBeTypeOf("function")
  })

  it("lacks getAccount, the authenticator methods and deleteUserSessions", () => {
    const adapter = PostgresAdapter(new pg.Pool()) as Record<string, unknown>
    for (const method of [
      "getAccount",
      "getAuthenticator",
      "createAuthenticator",
      "listAuthenticatorsByUserId",
      "updateAuthenticatorCounter",
      "deleteUserSessions",
    ]) {
      expect(adapter[method], method).toBeUndefined()
    }
  })
})
