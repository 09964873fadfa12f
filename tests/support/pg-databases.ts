/**
 * Databases on the run's PostgreSQL server (started once by `tests/setup/postgres.ts`, vitest's global
 * setup): one per adapter backend and test file, with a random name, so that no file sees another's
 * tables however files share workers. The server and everything on it go when the run ends.
 */
import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

/** A pool on a fresh, empty database; `close()` ends the pool (the database goes with the server). */
export interface TestDatabase {
  readonly pool: pg.Pool
  readonly connectionString: string
  close(): Promise<void>
}

/** Creates database `<name>_<random>` on the run's server and opens a pool on it. */
export async function openDatabase(name: string): Promise<TestDatabase> {
  const server = inject("postgresUrl")
  if (!server) throw new Error(`The test run's PostgreSQL did not start: ${inject("postgresError")}`)
  const admin = new pg.Client({ connectionString: server })
  const database = `${name}_${randomBytes(6).toString("hex")}`
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${database}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(server)
  url.pathname = `/${database}`
  const pool = new pg.Pool({ connectionString: url.href, max: 4 })
  // pg requires an error listener: idle clients are told "terminating connection" at server shutdown.
  pool.on("error", () => {})
  return { pool, connectionString: url.href, close: () => pool.end() }
}
