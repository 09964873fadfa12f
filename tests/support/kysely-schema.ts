/**
 * The PostgreSQL tables `@auth/kysely-adapter` documents (authjs.dev, "Kysely Adapter" → Schema), as
 * the migration the docs give, in Kysely's schema builder: User, Account, Session, VerificationToken
 * with uuid keys from `gen_random_uuid()`. There is no authenticator table: the adapter has no
 * WebAuthn methods.
 */
import type { Database } from "@auth/kysely-adapter"
import { type Kysely, sql } from "kysely"

/** Creates the documented tables and indexes in an empty database. */
export async function createKyselyTables(db: Kysely<Database>): Promise<void> {
  const uuidKey = sql`gen_random_uuid()`
  await db.schema
    .createTable("User")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(uuidKey))
    .addColumn("name", "text")
    .addColumn("email", "text", (c) => c.unique().notNull())
    .addColumn("emailVerified", "timestamptz")
    .addColumn("image", "text")
    .execute()
  await db.schema
    .createTable("Account")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(uuidKey))
    .addColumn("userId", "uuid", (c) => c.references("User.id").onDelete("cascade").notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("providerAccountId", "text", (c) => c.notNull())
    .addColumn("refresh_token", "text")
    .addColumn("access_token", "text")
    .addColumn("expires_at", "bigint")
    .addColumn("token_type", "text")
    .addColumn("scope", "text")
    .addColumn("id_token", "text")
    .addColumn("session_state", "text")
    .execute()
  await db.schema
    .createTable("Session")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(uuidKey))
    .addColumn("userId", "uuid", (c) => c.references("User.id").onDelete("cascade").notNull())
    .addColumn("sessionToken", "text", (c) => c.notNull().unique())
    .addColumn("expires", "timestamptz", (c) => c.notNull())
    .execute()
  await db.schema
    .createTable("VerificationToken")
    .addColumn("identifier", "text", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull().unique())
    .addColumn("expires", "timestamptz", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("Account_userId_index").on("Account").column("userId").execute()
  await db.schema.createIndex("Session_userId_index").on("Session").column("userId").execute()
}
