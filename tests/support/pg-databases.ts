/**
 * One real PostgreSQL server per test file, one database per adapter backend in it: the SQL adapters
 * share the server's start-up cost (initdb) and none sees another's tables. The server starts on the
 * first `openDatabase()` of a test file and stops after that file's last test.
 *
 * The `afterAll` below is registered when a test file imports this module (vitest collects it at the
 * file's top level); vitest gives every test file its own copy of the module, hence its own server.
 */
import pg from "pg"
import { afterAll } from "vitest"
import { type PostgresServer, startPostgres } from "./postgres.js"

let server: Promise<PostgresServer> | undefined
let databases = 0

afterAll(async () => {
  const started = server
  server = undefined
  await started?.then(
    (s) => s.stop(),
    () => {},
  )
})

/** A pool on a fresh, empty database; `close()` ends the pool (the database goes with the server). */
export interface TestDatabase {
  readonly pool: pg.Pool
  readonly connectionString: string
  close(): Promise<void>
}

/** Creates database `<name>_<n>` on this file's server (starting it if needed) and opens a pool on it. */
export async function openDatabase(name: string): Promise<TestDatabase> {
  server ??= startPostgres()
  const admin = new pg.Client({ connectionString: (await server).connectionString })
  const database = `${name}_${++databases}`
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${database}"`)
  } finally {
    await admin.end()
  }
  const url = new URL((await server).connectionString)
  url.pathname = `/${database}`
  const pool = new pg.Pool({ connectionString: url.href, max: 4 })
  // pg requires an error listener: idle clients are told "terminating connection" at server shutdown.
  pool.on("error", () => {})
  return { pool, connectionString: url.href, close: () => pool.end() }
}
