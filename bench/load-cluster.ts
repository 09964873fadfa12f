/**
 * `npm run bench:cluster`: OIDC sign-ins through two app instances on Redis Cluster (six redis-server
 * processes: three masters, three replicas), against the same two instances on one redis-server: what the
 * cluster costs per step, and the figures to plan capacity on paper. Loopback only; bounded; stops by
 * itself.
 *
 * Per backend, two app processes (tests/support/multi-app.ts, NODE_ENV=production): flow state in
 * `RedisFlowStore`, database sessions in `RedisAdapter`, the server-state port in `RedisServerState`, all
 * on that backend (a `createCluster` client with `failFastClusterOptions`, its failovers followed by the stores, on the
 * cluster). A real OpenID provider (oidc-provider, in this process). Each sign-in: csrf → POST
 * /auth/signin/idp → the provider → the callback → GET /auth/session, every request on the other
 * instance than the one before (bench/load-shared.ts).
 *
 * 1. unloaded: UNLOADED sign-ins per backend, one at a time, the backends alternating;
 * 2. under load: SIGNINS sign-ins per backend, all in flight together: each starts (csrf + POST: its
 *    flow saved) and waits at rest until every flow is in the store (counted then), then all finish
 *    (provider, callback, session read). A queue lets REQUESTS halves of sign-ins run at a time (a
 *    balancer's queue: 2,000 requests at once on a small machine only measure refused connections and
 *    authorization codes expiring in line); step times count from when a half leaves the queue;
 * 3. on paper, on the single node: Redis commands per step of one sign-in (INFO commandstats, pings
 *    left out), bytes of one in-flight flow (MEMORY USAGE), and the keys one new user leaves behind.
 *
 * Reported: completed, lost (must be 0), crossed (must be 0), not run, p50/p99 per step and the
 * cluster's extra latency; exit code 1 when anything was lost, crossed or not run, or flow keys stayed.
 *
 * Knobs: BENCH_CLUSTER_SIGNINS (2000), BENCH_CLUSTER_CONCURRENCY (= SIGNINS), BENCH_CLUSTER_CAP_S (300
 * per backend), BENCH_CLUSTER_UNLOADED (50 per backend), BENCH_CLUSTER_ACCOUNTS (10),
 * BENCH_CLUSTER_TIMEOUT_S (120, per request), BENCH_CLUSTER_REQUESTS (64 sign-in halves at a time; 0: no queue).
 */
import { createClient } from "redis"
import { failFastRedisOptions } from "../src/stores/redis.js"
import { type AppProcess, HttpBrowser, startApp } from "../tests/support/app-process.js"
import { type AuthorizeResult, type OidcServer, type TestAccount, startOidcProvider } from "../tests/support/oidc-provider.js"
import { type RedisClusterHandle, connectCluster, keysEverywhere, startRedisCluster } from "../tests/support/redis-cluster.js"
import { type RedisServer, freePort, startRedis } from "../tests/support/redis-server.js"
import {
  SESSION,
  STEPS,
  type Tally,
  emptyTally,
  freePorts,
  ms,
  percentile,
  record,
  run,
  signIn,
  signed,
  loadAccounts,
  loadAverage,
  machine,
  queueGate,
  barrier,
} from "./load-shared.js"

const SIGNINS = Number(process.env.BENCH_CLUSTER_SIGNINS ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CLUSTER_CONCURRENCY ?? SIGNINS)
const CAP_S = Number(process.env.BENCH_CLUSTER_CAP_S ?? 300)
const UNLOADED = Number(process.env.BENCH_CLUSTER_UNLOADED ?? 50)
const ACCOUNTS = Number(process.env.BENCH_CLUSTER_ACCOUNTS ?? 10)
const TIMEOUT_MS = Number(process.env.BENCH_CLUSTER_TIMEOUT_S ?? 120) * 1000
const REQUESTS = Number(process.env.BENCH_CLUSTER_REQUESTS ?? 64)
const WARMUP = 30
const AUTH_SECRET = "load-cluster-secret-0123456789abcdef012345678"

type Backend = "single" | "cluster"
const BACKENDS: readonly Backend[] = ["single", "cluster"]
const LABEL: Record<Backend, string> = { single: "one Redis", cluster: "Redis Cluster" }

function printTallies(title: string, tallies: Record<Backend, Tally>): void {
  console.log(`\n${title}`)
  console.log(
    `  ${"backend".padEnd(14)} ${"completed".padStart(9)} ${"lost".padStart(5)} ${"crossed".padStart(7)} ${"not run".padStart(7)} ${"wall s".padStart(7)} ${"sign-ins/s".padStart(10)} ${"app CPU ms/sign-in".padStart(18)}`,
  )
  for (const backend of BACKENDS) {
    const t = tallies[backend]
    const cpu = t.appCpuMs !== null && t.completed > 0 ? (t.appCpuMs / t.completed).toFixed(2) : "n/a"
    console.log(
      `  ${LABEL[backend].padEnd(14)} ${String(t.completed).padStart(9)} ${String(t.lost).padStart(5)} ${String(t.crossed).padStart(7)} ${String(t.notRun).padStart(7)} ${t.wallS.toFixed(1).padStart(7)} ${(t.completed / t.wallS).toFixed(1).padStart(10)} ${cpu.padStart(18)}`,
    )
    for (const sample of t.samples) console.log(`                 ${sample}`)
  }
  console.log(
    `  ${"step (ms)".padEnd(14)} ${"one p50".padStart(9)} ${"one p99".padStart(9)} ${"cluster p50".padStart(12)} ${"cluster p99".padStart(12)} ${"extra p50".padStart(10)} ${"extra p99".padStart(10)}`,
  )
  for (const step of STEPS) {
    const [o50, o99] = [percentile(tallies.single.times[step], 50), percentile(tallies.single.times[step], 99)]
    const [c50, c99] = [percentile(tallies.cluster.times[step], 50), percentile(tallies.cluster.times[step], 99)]
    console.log(
      `  ${step.padEnd(14)} ${ms(o50).padStart(9)} ${ms(o99).padStart(9)} ${ms(c50).padStart(12)} ${ms(c99).padStart(12)} ${signed(c50 - o50).padStart(10)} ${signed(c99 - o99).padStart(10)}`,
    )
  }
}

type Probe = ReturnType<typeof createClient>

/** Calls per command on `probe`'s server so far (INFO commandstats), without pings and this probe's own commands. */
async function commandCalls(probe: Probe): Promise<Map<string, number>> {
  const info = String(await probe.sendCommand(["INFO", "commandstats"]))
  const calls = new Map<string, number>()
  for (const match of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    const name = match[1] as string
    if (!/^(ping|info|keys|memory|strlen|hello|client\|.*|select|cluster\|.*)$/.test(name)) calls.set(name, Number(match[2]))
  }
  return calls
}

function diff(before: Map<string, number>, after: Map<string, number>): string {
  const parts: string[] = []
  let total = 0
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0)
    if (delta > 0) {
      parts.push(`${delta} ${name.toUpperCase()}`)
      total += delta
    }
  }
  return `${total}${parts.length ? ` (${parts.join(", ")})` : ""}`
}

/** One sign-in of a new account step by step on `apps` (one Redis), counting what each step sends to Redis. */
async function onPaper(apps: AppProcess[], idp: OidcServer, redis: RedisServer, account: TestAccount): Promise<void> {
  const probe = createClient(failFastRedisOptions(redis.url))
  probe.on("error", () => undefined)
  await probe.connect()
  try {
    const before = new Set(await probe.keys("app:*"))
    const browser = new HttpBrowser(
      apps.map((a) => a.base),
      0,
    )
    const rows: string[] = []
    const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const start = await commandCalls(probe)
      const result = await work()
      rows.push(`  ${name.padEnd(14)} ${diff(start, await commandCalls(probe))}`)
      return result
    }
    const csrfToken = await step("csrf", () => browser.csrf())
    const start = await step("signin POST", () => browser.send("/auth/signin/idp", { form: { csrfToken } }))
    const flowKey = `app:flow:authchart.flow.idp:${browser.cookie("authchart.flow.idp")}`
    const [flowBytes, flowLength] = await Promise.all([probe.sendCommand(["MEMORY", "USAGE", flowKey]), probe.strLen(flowKey)])
    const answer = (await step("IdP", () => idp.authorize(start.location as string, { account: account.sub }))) as AuthorizeResult
    if (answer.kind !== "redirect") throw new Error(`on paper: the provider answered ${answer.kind}`)
    await step("callback", () => browser.send(answer.url))
    await step("session read", () => browser.send("/auth/session"))
    console.log("\non paper (one Redis, one sign-in of a new user, every request on the other instance): Redis commands per step")
    for (const row of rows) console.log(row)
    console.log(`in-flight flow: 1 key, ${flowLength} bytes of sealed envelope, ${flowBytes} bytes in Redis (MEMORY USAGE)`)

    const added = (await probe.keys("app:*")).filter((key) => !before.has(key)).sort()
    const sizes = await Promise.all(added.map((key) => probe.sendCommand(["MEMORY", "USAGE", key])))
    const token = browser.cookie(SESSION) ?? ""
    const shape = (key: string) =>
      key
        .replace(/^app:state:flow:\{[^}]+\}:.*$/, "app:state:flow:{<flow id>}:<nonce> (single use, until the flow expires)")
        .replace(token, "<session token>")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<user id>")
        .replace(/[A-Za-z0-9_-]{22}/g, "<id>")
    console.log(`a new user leaves ${added.length} keys, ${sizes.reduce((s: number, n) => s + Number(n), 0)} bytes in Redis:`)
    for (const [i, key] of added.entries()) console.log(`  ${shape(key).padEnd(60)} ${String(sizes[i]).padStart(5)} bytes`)
  } finally {
    probe.destroy()
  }
}

async function main(): Promise<void> {
  const began = Date.now()
  console.log(
    `authchart Redis Cluster load: ${SIGNINS} OIDC sign-ins per backend, ${CONCURRENCY} in flight, cap ${CAP_S} s per backend; ` +
      `${UNLOADED} unloaded sign-ins per backend; ${ACCOUNTS} IdP accounts; two app processes per backend; loopback only`,
  )
  console.log(machine())
  const accounts = loadAccounts(ACCOUNTS)
  const newcomer: TestAccount = { sub: "paper", email: "paper@example.test", name: "Paper" }
  let single: RedisServer | undefined
  let cluster: RedisClusterHandle | undefined
  let idp: OidcServer | undefined
  const apps: Record<Backend, AppProcess[]> = { single: [], cluster: [] }
  try {
    ;[single, cluster] = await Promise.all([startRedis(), startRedisCluster({ nodeTimeoutMs: 5_000 })])
    const ports = await freePorts(4, freePort)
    idp = await startOidcProvider({
      accounts: [...accounts, newcomer],
      browserTimeoutMs: TIMEOUT_MS,
      clients: [
        {
          client_id: "load-client",
          client_secret: "load-secret",
          redirect_uris: ports.map((p) => `http://127.0.0.1:${p}/auth/callback/idp`),
        },
      ],
    })
    const redisEnv: Record<Backend, Record<string, string>> = {
      single: { REDIS_URL: single.url },
      cluster: { REDIS_CLUSTER: cluster.urls.join(",") },
    }
    for (const [n, backend] of BACKENDS.entries()) {
      apps[backend] = await Promise.all(
        [0, 1].map((k) =>
          startApp("tests/support/multi-app.ts", {
            timeoutMs: 60_000,
            env: {
              PORT: String(ports[2 * n + k]),
              NODE_ENV: "production",
              AUTH_SECRET,
              AUTH_URL: undefined,
              ...redisEnv[backend],
              FLOW_STORE: "redis",
              SESSIONS: "database",
              SERVER_STATE: "redis",
              OIDC_ISSUER: idp?.issuer,
              OIDC_CLIENT_ID: "load-client",
              OIDC_CLIENT_SECRET: "load-secret",
            },
          }),
        ),
      )
    }

    for (const backend of BACKENDS) {
      const warm = await run(apps[backend], idp, accounts, { count: WARMUP, concurrency: 5, capS: 60 })
      if (warm.completed !== WARMUP) throw new Error(`${backend}: warm-up failed: ${warm.samples.join("; ")}`)
    }

    const unloaded: Record<Backend, Tally> = { single: emptyTally(), cluster: emptyTally() }
    const unloadedStart = performance.now()
    for (let i = 0; i < UNLOADED * 2; i++) {
      const backend = BACKENDS[i % 2] as Backend
      record(unloaded[backend], await signIn(apps[backend], idp, accounts[i % accounts.length] as TestAccount, i % 2))
    }
    for (const backend of BACKENDS) unloaded[backend].wallS = (performance.now() - unloadedStart) / 1000 / 2
    printTallies(`unloaded: ${UNLOADED} sign-ins per backend, one at a time (backends alternating)`, unloaded)

    // all SIGNINS sign-ins start (csrf + POST, the flow saved) and wait at rest until every flow is in
    // the store; then all finish. The cluster first: a machine getting busier favours one Redis.
    const loaded = { cluster: emptyTally(), single: emptyTally() }
    const peaks: Record<Backend, string> = { cluster: "", single: "" }
    const inFlight = await connectCluster(cluster.urls)
    const flowsIn = async (backend: Backend) => {
      if (backend === "cluster") return (await keysEverywhere(inFlight, "app:flow:*")).length
      const one = createClient(failFastRedisOptions(single?.url as string)).on("error", () => undefined)
      await one.connect()
      const count = (await one.keys("app:flow:*")).length
      one.destroy()
      return count
    }
    for (const backend of ["cluster", "single"] as const) {
      // the pause at rest needs every sign-in in flight (a smaller CONCURRENCY would wait for ever)
      const atRest =
        CONCURRENCY >= SIGNINS
          ? barrier(SIGNINS, async () => {
              peaks[backend] = `${await flowsIn(backend)} flows at rest in the store at once`
            })
          : undefined
      loaded[backend] = await run(apps[backend], idp, accounts, {
        count: SIGNINS,
        concurrency: CONCURRENCY,
        capS: CAP_S,
        signIn: { timeoutMs: TIMEOUT_MS, ...(atRest ? { atRest } : {}), ...(REQUESTS > 0 ? { gate: queueGate(REQUESTS) } : {}) },
      })
    }
    inFlight.destroy()
    const queue = REQUESTS > 0 ? `${REQUESTS} sign-in halves at a time` : "no queue"
    printTallies(`under load: ${SIGNINS} sign-ins per backend all in flight together, ${queue}, through two instances`, loaded)
    for (const backend of BACKENDS) console.log(`  ${LABEL[backend]}: ${peaks[backend] || "the sign-ins never all came to rest"}`)

    const probe = await connectCluster(cluster.urls)
    const leftover = (await keysEverywhere(probe, "app:flow:*")).length
    const sessions = (await keysEverywhere(probe, "app:session:*")).length
    const perMaster = await Promise.all(probe.masters.map(async (m) => Number(await (await probe.nodeClient(m)).dbSize())))
    probe.destroy()
    console.log(
      `\nthe cluster after the runs: ${leftover} flow keys left (must be 0), ${sessions} database sessions; keys per master: ${perMaster.join(" / ")}`,
    )

    await onPaper(apps.single, idp, single, newcomer)

    const all = [...Object.values(loaded), ...Object.values(unloaded)]
    const bad = all.reduce((s, t) => s + t.lost + t.crossed + t.notRun, 0) + leftover
    const c = loaded.cluster
    const extra = (step: (typeof STEPS)[number]) =>
      signed(percentile(unloaded.cluster.times[step], 50) - percentile(unloaded.single.times[step], 50))
    console.log(
      `\n${bad === 0 ? "PASS" : "FAIL"}  cluster: ${c.completed}/${SIGNINS} completed, lost ${c.lost}, crossed ${c.crossed}, not run ${c.notRun}; ` +
        `extra latency of the cluster (p50, unloaded): signin POST ${extra("signin POST")} ms, callback ${extra("callback")} ms, session read ${extra("session read")} ms, whole sign-in ${extra("total")} ms`,
    )
    console.log(`(${((Date.now() - began) / 1000).toFixed(0)} s; load average after: ${loadAverage()})`)
    if (bad !== 0) process.exitCode = 1
  } finally {
    await Promise.all([...apps.single, ...apps.cluster].map((a) => a.stop()))
    await idp?.stop()
    await Promise.all([single?.stop(), cluster?.stop()])
  }
}

// Ctrl-C: exit through process.exit so the exit hooks kill the app processes and redis-servers.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130))

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
