/**
 * `npm run bench:redis` (also run at the end of `npm run bench`): OIDC sign-ins through two app
 * instances sharing one Redis, with the flow state in `RedisFlowStore`, and the same with the sealed
 * cookie store for comparison. Loopback only; bounded in count and time; stops by itself.
 *
 * Per store, two app processes (tests/support/multi-app.ts, NODE_ENV=production, database sessions in
 * `RedisAdapter` on the same redis-server in both runs, so the flow store is the only difference). A
 * real OpenID provider (oidc-provider, in this process) with ACCOUNTS accounts. Every sign-in is a
 * browser with its own cookie jar whose requests alternate between the instances: csrf → POST
 * /auth/signin/idp → the provider (login as account i mod ACCOUNTS, consent) → the callback (on the
 * other instance than the POST) → GET /auth/session (again the other instance), which must show the
 * account that logged in.
 *
 * Reported per store: completed, lost (did not end with a session: must be 0), crossed (ended with a
 * session of another account: must be 0), not run (the time cap hit), p50/p99 of each step, and the
 * extra latency of the Redis store over the cookie store, twice: unloaded (one sign-in at a time,
 * alternating stores, so both see the same machine) and under load (LOAD_CONCURRENCY in flight).
 * Exit code 1 when anything was lost, crossed or not run, or Redis kept flow state after the run.
 *
 * Knobs: BENCH_REDIS_SIGNINS (1000), BENCH_REDIS_CONCURRENCY (50), BENCH_REDIS_CAP_S (240 per store),
 * BENCH_REDIS_UNLOADED (100 per store), BENCH_REDIS_ACCOUNTS (10).
 */
import { createClient } from "redis"
import { failFastRedisOptions } from "../src/stores/redis.js"
import { type AppProcess, startApp } from "../tests/support/app-process.js"
import { type OidcServer, type TestAccount, startOidcProvider } from "../tests/support/oidc-provider.js"
import { type RedisServer, freePort, startRedis } from "../tests/support/redis-server.js"
import {
  STEPS,
  type Tally,
  emptyTally,
  freePorts,
  merge,
  ms,
  percentile,
  record,
  run,
  signIn,
  signed,
  loadAccounts,
  loadAverage,
  machine,
} from "./load-shared.js"

const SIGNINS = Number(process.env.BENCH_REDIS_SIGNINS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_REDIS_CONCURRENCY ?? 50)
const CAP_S = Number(process.env.BENCH_REDIS_CAP_S ?? 240)
const UNLOADED = Number(process.env.BENCH_REDIS_UNLOADED ?? 100)
const ACCOUNTS = Number(process.env.BENCH_REDIS_ACCOUNTS ?? 10)
const WARMUP = 30
const AUTH_SECRET = "load-redis-secret-0123456789abcdef0123456789"

type Store = "redis" | "cookie"
const STORES: readonly Store[] = ["redis", "cookie"]
interface Pair {
  store: Store
  apps: AppProcess[]
}

/** One sign-in on `pair`'s instances. */
const signInOn = (pair: Pair, idp: OidcServer, account: TestAccount, first: number) => signIn(pair.apps, idp, account, first)

/** `count` sign-ins on `pair`, at most `concurrency` in flight, none started after `capS`. */
const runOn = (pair: Pair, idp: OidcServer, accounts: TestAccount[], count: number, concurrency: number, capS: number) =>
  run(pair.apps, idp, accounts, { count, concurrency, capS })

function printTallies(title: string, tallies: Record<Store, Tally>): void {
  console.log(`\n${title}`)
  console.log(
    `  ${"store".padEnd(8)} ${"completed".padStart(9)} ${"lost".padStart(5)} ${"crossed".padStart(7)} ${"not run".padStart(7)} ${"wall s".padStart(7)} ${"sign-ins/s".padStart(10)} ${"app CPU ms/sign-in".padStart(18)}`,
  )
  for (const store of STORES) {
    const t = tallies[store]
    const cpu = t.appCpuMs !== null && t.completed > 0 ? (t.appCpuMs / t.completed).toFixed(2) : "n/a"
    console.log(
      `  ${store.padEnd(8)} ${String(t.completed).padStart(9)} ${String(t.lost).padStart(5)} ${String(t.crossed).padStart(7)} ${String(t.notRun).padStart(7)} ${t.wallS.toFixed(1).padStart(7)} ${(t.completed / t.wallS).toFixed(1).padStart(10)} ${cpu.padStart(18)}`,
    )
    for (const sample of t.samples) console.log(`           ${sample}`)
  }
  console.log(
    `  ${"step (ms)".padEnd(14)} ${"redis p50".padStart(10)} ${"redis p99".padStart(10)} ${"cookie p50".padStart(11)} ${"cookie p99".padStart(11)} ${"extra p50".padStart(10)} ${"extra p99".padStart(10)}`,
  )
  for (const step of STEPS) {
    const r = tallies.redis.times[step]
    const c = tallies.cookie.times[step]
    const [r50, r99, c50, c99] = [percentile(r, 50), percentile(r, 99), percentile(c, 50), percentile(c, 99)]
    console.log(
      `  ${step.padEnd(14)} ${ms(r50).padStart(10)} ${ms(r99).padStart(10)} ${ms(c50).padStart(11)} ${ms(c99).padStart(11)} ${signed(r50 - c50).padStart(10)} ${signed(r99 - c99).padStart(10)}`,
    )
  }
}

async function main(): Promise<void> {
  const began = Date.now()
  console.log(
    `authchart Redis flow-store load: ${SIGNINS} OIDC sign-ins per store, ${CONCURRENCY} in flight, cap ${CAP_S} s per store; ` +
      `${UNLOADED} unloaded sign-ins per store; ${ACCOUNTS} IdP accounts; two app processes per store; loopback only`,
  )
  console.log(machine())
  const accounts = loadAccounts(ACCOUNTS)
  let redis: RedisServer | undefined
  let idp: OidcServer | undefined
  const pairs: Pair[] = []
  try {
    redis = await startRedis()
    const ports = await freePorts(4, freePort)
    idp = await startOidcProvider({
      accounts,
      clients: [
        {
          client_id: "load-client",
          client_secret: "load-secret",
          redirect_uris: ports.map((p) => `http://127.0.0.1:${p}/auth/callback/idp`),
        },
      ],
    })
    const env = (store: Store, port: number) => ({
      PORT: String(port),
      NODE_ENV: "production",
      AUTH_SECRET,
      AUTH_URL: undefined,
      REDIS_URL: redis?.url,
      FLOW_STORE: store,
      SESSIONS: "database",
      OIDC_ISSUER: idp?.issuer,
      OIDC_CLIENT_ID: "load-client",
      OIDC_CLIENT_SECRET: "load-secret",
    })
    for (const [n, store] of STORES.entries()) {
      const apps = await Promise.all(
        [0, 1].map((k) => startApp("tests/support/multi-app.ts", { env: env(store, ports[2 * n + k] as number), timeoutMs: 60_000 })),
      )
      pairs.push({ store, apps })
    }
    const pairOf = (store: Store) => pairs.find((p) => p.store === store) as Pair

    // warm-up (JIT, discovery, connections), not reported
    for (const pair of pairs) {
      const warm = await runOn(pair, idp, accounts, WARMUP, 5, 60)
      if (warm.completed !== WARMUP) throw new Error(`${pair.store}: warm-up failed: ${warm.samples.join("; ")}`)
    }

    // unloaded: one sign-in at a time, the stores alternating, so both see the same machine
    const unloaded: Record<Store, Tally> = { redis: emptyTally(), cookie: emptyTally() }
    const unloadedStart = performance.now()
    for (let i = 0; i < UNLOADED * 2; i++) {
      const store = STORES[i % 2] as Store
      record(unloaded[store], await signInOn(pairOf(store), idp, accounts[i % accounts.length] as TestAccount, i % 2))
    }
    for (const store of STORES) unloaded[store].wallS = (performance.now() - unloadedStart) / 1000 / 2
    printTallies(`unloaded: ${UNLOADED} sign-ins per store, one at a time (stores alternating)`, unloaded)

    // under load, in halves A B B A so that a machine getting busier or quieter favours neither store
    const halves: Record<Store, Tally[]> = { redis: [], cookie: [] }
    for (const store of [...STORES, ...[...STORES].reverse()]) {
      const count = halves[store].length === 0 ? Math.ceil(SIGNINS / 2) : Math.floor(SIGNINS / 2)
      halves[store].push(await runOn(pairOf(store), idp, accounts, count, CONCURRENCY, CAP_S / 2))
    }
    const loaded = { redis: merge(halves.redis), cookie: merge(halves.cookie) }
    printTallies(`under load: ${SIGNINS} sign-ins per store, ${CONCURRENCY} in flight, through two instances`, loaded)

    // nothing of any flow may stay in Redis once every flow ended
    const probe = createClient(failFastRedisOptions(redis.url))
    probe.on("error", () => undefined)
    await probe.connect()
    const leftover = (await probe.keys("app:flow:*")).length
    const sessions = (await probe.keys("app:session:*")).length
    // what the Redis store adds per step, on this machine: SET PX (rest) and GETDEL + DEL (resume, clear)
    const rtt: number[] = []
    const envelope = "x".repeat(1_400)
    for (let i = 0; i < 300; i++) {
      const started = performance.now()
      await probe.set(`probe:${i}`, envelope, { PX: 60_000 })
      await probe.getDel(`probe:${i}`)
      rtt.push((performance.now() - started) / 2)
    }
    probe.destroy()
    console.log(`\nRedis after the runs: ${leftover} flow keys left (must be 0), ${sessions} database sessions`)
    console.log(
      `one Redis command from this process (SET PX / GETDEL, 1.4 kB): p50 ${ms(percentile(rtt, 50))} ms, p99 ${ms(percentile(rtt, 99))} ms; ` +
        "the Redis store adds 1 command to the signin POST (SET) and 2 to the callback (GETDEL, DEL)",
    )

    const all = [...Object.values(loaded), ...Object.values(unloaded)]
    const bad = all.reduce((s, t) => s + t.lost + t.crossed + t.notRun, 0) + leftover
    const r = loaded.redis
    console.log(
      `${bad === 0 ? "PASS" : "FAIL"}  redis store: ${r.completed}/${SIGNINS} completed, lost ${r.lost}, crossed ${r.crossed}, not run ${r.notRun}; ` +
        `extra latency of the Redis store (p50, unloaded): signin POST ${signed(percentile(unloaded.redis.times["signin POST"], 50) - percentile(unloaded.cookie.times["signin POST"], 50))} ms, ` +
        `callback ${signed(percentile(unloaded.redis.times.callback, 50) - percentile(unloaded.cookie.times.callback, 50))} ms`,
    )
    console.log(`(${((Date.now() - began) / 1000).toFixed(0)} s; load average after: ${loadAverage()})`)
    if (bad !== 0) process.exitCode = 1
  } finally {
    await Promise.all(pairs.flatMap((p) => p.apps.map((a) => a.stop())))
    await idp?.stop()
    await redis?.stop()
  }
}

// Ctrl-C: exit through process.exit so the exit hooks kill the app processes and redis-server.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130))

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
