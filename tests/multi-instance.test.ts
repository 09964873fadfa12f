/**
 * Two app processes sharing one redis-server: the scenarios of tests/multi-instance-scenarios.ts (OIDC
 * and email sign-ins started on one instance and finished on the other, database sessions read by both,
 * sign-out seen by both). tests/cluster-instances.test.ts runs the same scenarios on Redis Cluster.
 */
import { failFastRedisOptions } from "../src/stores/redis.js"
import { createClient } from "redis"
import { runMultiInstanceScenarios } from "./multi-instance-scenarios.js"
import { startRedis } from "./support/redis-server.js"

runMultiInstanceScenarios("one Redis", async () => {
  const server = await startRedis()
  const raw = createClient(failFastRedisOptions(server.url))
  raw.on("error", () => undefined)
  await raw.connect()
  return {
    env: { REDIS_URL: server.url },
    exists: (key) => raw.exists(key),
    keys: (pattern) => raw.keys(pattern),
    async stop() {
      raw.destroy()
      await server.stop()
    },
  }
})
