/**
 * vitest's global setup: one PostgreSQL server for the whole run, started in vitest's own process
 * before any worker and stopped after the last test file. Test files reach it through
 * `inject("postgresUrl")` and work in databases of their own (`support/pg-databases.ts`). A server
 * owned by the test files leaked when files share their worker's modules: the module that stopped it
 * after a file is evaluated once per worker, not once per file.
 *
 * vitest runs a global setup once per project (and once more for the root config), each in a module
 * of its own: the server is kept on `globalThis`, and the last teardown stops it.
 */
import type { TestProject } from "vitest/node"
import { type PostgresServer, startPostgres } from "../support/postgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The server's connection string, or "" when it did not start (then `postgresError` says why). */
    postgresUrl: string
    postgresError: string
  }
}

interface Shared {
  readonly server: Promise<PostgresServer | Error>
  users: number
}

/** The server, or why it could not start: only the files that use it fail then, each with the reason. */
const started = (): Promise<PostgresServer | Error> =>
  startPostgres().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))

declare global {
  var authchartTestPostgres: Shared | undefined
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (globalThis.authchartTestPostgres ??= { server: started(), users: 0 })
  shared.users++
  const server = await shared.server
  project.provide("postgresUrl", server instanceof Error ? "" : server.connectionString)
  project.provide("postgresError", server instanceof Error ? `${server.message}${server.cause ? ` (${String(server.cause)})` : ""}` : "")
  return async () => {
    shared.users--
    if (shared.users > 0) return
    globalThis.authchartTestPostgres = undefined
    if (!(server instanceof Error)) await server.stop()
  }
}
