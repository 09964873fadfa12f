/**
 * The tables `@auth/drizzle-adapter` documents (authjs.dev, "Drizzle ORM Adapter" → Schemas), written
 * with drizzle's table builders for PostgreSQL and SQLite, authenticators included (passkeys). The
 * databases are created from these definitions by drizzle-kit, the way the docs say to migrate
 * (`drizzle-kit generate`/`push`), here through its programmatic API: the SQL is never written by hand.
 */
import type { AdapterAccountType } from "@auth/core/adapters"
import { boolean, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core"
import { integer as sqliteInteger, primaryKey as sqlitePrimaryKey, sqliteTable, text as sqliteText } from "drizzle-orm/sqlite-core"

const pgUsers = pgTable("user", {
  id: text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID()),
  name: text("name"),
  email: text("email").unique(),
  emailVerified: timestamp("emailVerified", { mode: "date" }),
  image: text("image"),
})

/** PostgreSQL: the five tables, keyed as the adapter's second argument expects. */
export const pgTables = {
  usersTable: pgUsers,
  accountsTable: pgTable(
    "account",
    {
      userId: text("userId")
        .notNull()
        .references(() => pgUsers.id, { onDelete: "cascade" }),
      type: text("type").$type<AdapterAccountType>().notNull(),
      provider: text("provider").notNull(),
      providerAccountId: text("providerAccountId").notNull(),
      refresh_token: text("refresh_token"),
      access_token: text("access_token"),
      expires_at: integer("expires_at"),
      token_type: text("token_type"),
      scope: text("scope"),
      id_token: text("id_token"),
      session_state: text("session_state"),
    },
    (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] })],
  ),
  sessionsTable: pgTable("session", {
    sessionToken: text("sessionToken").primaryKey(),
    userId: text("userId")
      .notNull()
      .references(() => pgUsers.id, { onDelete: "cascade" }),
    expires: timestamp("expires", { mode: "date" }).notNull(),
  }),
  verificationTokensTable: pgTable(
    "verificationToken",
    {
      identifier: text("identifier").notNull(),
      token: text("token").notNull(),
      expires: timestamp("expires", { mode: "date" }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.identifier, t.token] })],
  ),
  authenticatorsTable: pgTable(
    "authenticator",
    {
      credentialID: text("credentialID").notNull().unique(),
      userId: text("userId")
        .notNull()
        .references(() => pgUsers.id, { onDelete: "cascade" }),
      providerAccountId: text("providerAccountId").notNull(),
      credentialPublicKey: text("credentialPublicKey").notNull(),
      counter: integer("counter").notNull(),
      credentialDeviceType: text("credentialDeviceType").notNull(),
      credentialBackedUp: boolean("credentialBackedUp").notNull(),
      transports: text("transports"),
    },
    (t) => [primaryKey({ columns: [t.userId, t.credentialID] })],
  ),
}

const sqliteUsers = sqliteTable("user", {
  id: sqliteText("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID()),
  name: sqliteText("name"),
  email: sqliteText("email").unique(),
  emailVerified: sqliteInteger("emailVerified", { mode: "timestamp_ms" }),
  image: sqliteText("image"),
})

/** SQLite: the same five tables; dates are integer milliseconds, booleans integers. */
export const sqliteTables = {
  usersTable: sqliteUsers,
  accountsTable: sqliteTable(
    "account",
    {
      userId: sqliteText("userId")
        .notNull()
        .references(() => sqliteUsers.id, { onDelete: "cascade" }),
      type: sqliteText("type").$type<AdapterAccountType>().notNull(),
      provider: sqliteText("provider").notNull(),
      providerAccountId: sqliteText("providerAccountId").notNull(),
      refresh_token: sqliteText("refresh_token"),
      access_token: sqliteText("access_token"),
      expires_at: sqliteInteger("expires_at"),
      token_type: sqliteText("token_type"),
      scope: sqliteText("scope"),
      id_token: sqliteText("id_token"),
      session_state: sqliteText("session_state"),
    },
    (t) => [sqlitePrimaryKey({ columns: [t.provider, t.providerAccountId] })],
  ),
  sessionsTable: sqliteTable("session", {
    sessionToken: sqliteText("sessionToken").primaryKey(),
    userId: sqliteText("userId")
      .notNull()
      .references(() => sqliteUsers.id, { onDelete: "cascade" }),
    expires: sqliteInteger("expires", { mode: "timestamp_ms" }).notNull(),
  }),
  verificationTokensTable: sqliteTable(
    "verificationToken",
    {
      identifier: sqliteText("identifier").notNull(),
      token: sqliteText("token").notNull(),
      expires: sqliteInteger("expires", { mode: "timestamp_ms" }).notNull(),
    },
    (t) => [sqlitePrimaryKey({ columns: [t.identifier, t.token] })],
  ),
  authenticatorsTable: sqliteTable(
    "authenticator",
    {
      credentialID: sqliteText("credentialID").notNull().unique(),
      userId: sqliteText("userId")
        .notNull()
        .references(() => sqliteUsers.id, { onDelete: "cascade" }),
      providerAccountId: sqliteText("providerAccountId").notNull(),
      credentialPublicKey: sqliteText("credentialPublicKey").notNull(),
      counter: sqliteInteger("counter").notNull(),
      credentialDeviceType: sqliteText("credentialDeviceType").notNull(),
      credentialBackedUp: sqliteInteger("credentialBackedUp", { mode: "boolean" }).notNull(),
      transports: sqliteText("transports"),
    },
    (t) => [sqlitePrimaryKey({ columns: [t.userId, t.credentialID] })],
  ),
}

/** The statements drizzle-kit generates to create `pgTables` in an empty PostgreSQL database. */
export async function pgCreateStatements(): Promise<string[]> {
  const kit = await import("drizzle-kit/api")
  return kit.generateMigration(kit.generateDrizzleJson({}), kit.generateDrizzleJson(pgTables))
}

/** The statements drizzle-kit generates to create `sqliteTables` in an empty SQLite database. */
export async function sqliteCreateStatements(): Promise<string[]> {
  const kit = await import("drizzle-kit/api")
  return kit.generateSQLiteMigration(await kit.generateSQLiteDrizzleJson({}), await kit.generateSQLiteDrizzleJson(sqliteTables))
}
