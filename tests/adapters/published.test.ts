/**
 * The Auth.js adapters published on npm, unchanged, through the same conformance suite as authchart's
 * own, each on a real server or file (`tests/support/backends.ts`; the PostgreSQL ones share one server
 * in this file, a database each). The `quirks` of each entry record where it departs from the full
 * contract; the tests they guard show as skipped.
 *
 * Needs the PostgreSQL server binaries and redis-server (`npm test` provisions both).
 */
import { drizzlePgBackend, drizzleSqliteBackend, kyselyBackend, unstorageBackend } from "../support/backends.js"
import { runAdapterConformance } from "./conformance.js"

for (const backend of [drizzlePgBackend, drizzleSqliteBackend, kyselyBackend, unstorageBackend]) {
  runAdapterConformance(backend.name, () => backend.setup(), backend.quirks)
}
