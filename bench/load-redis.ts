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
import { readFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { createClient } from "redis"
import { failFastRedisOptions } from "../src/stores/redis.js"
import { type AppProcess, HttpBrowser, startApp } from "../tests/support/app-process.js"
import { type AuthorizeResult, type OidcServer, type TestAccount, startOidcProvider } from "../tests/support/oidc-provider.js"
import { type RedisServer, freePort, startRedis } from "../tests/support/redis-server.js"

const SIGNINS = Number(process.env.BENCH_REDIS_SIGNINS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_REDIS_CONCURRENCY ?? 50)
const CAP_S = Number(process.env.BENCH_REDIS_CAP_S ?? 240)
const UNLOADED = Number(process.env.BENCH_REDIS_UNLOADED ?? 100)
const ACCOUNTS = Number(process.env.BENCH_REDIS_ACCOUNTS ?? 10)
const WARMUP = 30
const AUTH_SECRET = "load-redis-secret-0123456789abcdef0123456789"
const SESSION = "authjs.session-token"

type Store = "redis" | "cookie"
const STORES: readonly Store[] = ["redis", "cookie"]
const STEPS = ["csrf", "signin POST", "IdP", "callback", "session read", "total"] as const
type Step = (typeof STEPS)[number]

interface Pair {
  store: Store
  apps: AppProcess[]
}

type Outcome = { kind: "ok"; times: Record<Step, number> } | { kind: "crossed"; detail: string } | { kind: "lost"; detail: string }

/** One complete sign-in as `account`, every request on the other instance than the one before. */
async function signIn(pair: Pair, idp: OidcServer, account: TestAccount, first: number): Promise<Outcome> {
  const browser = new HttpBrowser(
    pair.apps.map((a) => a.base),
    first,
  )
  const times = {} as Record<Step, number>
  const t0 = performance.now()
  const timed = async <T>(step: Step, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      times[step] = performance.now() - started
    }
  }
  try {
    const csrfToken = await timed("csrf", () => browser.csrf())
    const start = await timed("signin POST", () => browser.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } }))
    if (!start.location?.startsWith(`${idp.issuer}/`))
      return { kind: "lost", detail: `signin POST → ${start.res.status} ${start.location} ${start.text.slice(0, 120)}` }
    const answer = (await timed("IdP", () => idp.authorize(start.location as string, { account: account.sub }))) as AuthorizeResult
    if (answer.kind !== "redirect") return { kind: "lost", detail: `provider answered ${answer.kind}` }
    const callback = await timed("callback", () => browser.send(answer.url))
    if (callback.index === start.index) return { kind: "lost", detail: "the callback went to the starting instance" }
    if (callback.res.status !== 302 || !browser.cookie(SESSION)) {
      return { kind: "lost", detail: `callback → ${callback.res.status} ${callback.location}` }
    }
    const read = await timed("session read", () => browser.send("/auth/session"))
    const session = JSON.parse(read.text) as { user?: { email?: string } } | null
    times.total = performance.now() - t0
    const email = session?.user?.email
    if (!email) return { kind: "lost", detail: `no session after sign-in: ${read.text.slice(0, 120)}` }
    if (email !== account.email) return { kind: "crossed", detail: `logged in as ${account.email}, session of ${email}` }
    return { kind: "ok", times }
  } catch (err) {
    return { kind: "lost", detail: `${(err as Error).name}: ${(err as Error).message}` }
  }
}

interface Tally {
  completed: number
  lost: number
  crossed: number
  notRun: number
  samples: string[]
  times: Record<Step, number[]>
  wallS: number
  appCpuMs: number | null
}

const emptyTally = (): Tally => ({
  completed: 0,
  lost: 0,
  crossed: 0,
  notRun: 0,
  samples: [],
  times: Object.fromEntries(STEPS.map((s) => [s, []])) as unknown as Record<Step, number[]>,
  wallS: 0,
  appCpuMs: null,
})

function record(tally: Tally, outcome: Outcome): void {
  if (outcome.kind === "ok") {
    tally.completed++
    for (const step of STEPS) tally.times[step].push(outcome.times[step])
    return
  }
  tally[outcome.kind]++
  if (tally.samples.length < 5) tally.samples.push(`${outcome.kind}: ${outcome.detail}`)
}

/** User + system CPU of a process so far, ms (Linux /proc; null elsewhere). */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return null
  }
}
const pairCpu = (pair: Pair) => {
  const each = pair.apps.map((a) => cpuMs(a.pid))
  return each.some((c) => c === null) ? null : each.reduce((s: number, c) => s + (c as number), 0)
}

/** `count` sign-ins, at most `concurrency` in flight, none started after `capS`. */
async function run(pair: Pair, idp: OidcServer, accounts: TestAccount[], count: number, concurrency: number, capS: number): Promise<Tally> {
  const tally = emptyTally()
  const cpuBefore = pairCpu(pair)
  const started = performance.now()
  const deadline = started + capS * 1000
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      if (performance.now() > deadline) {
        tally.notRun++
        continue
      }
      record(tally, await signIn(pair, idp, accounts[i % accounts.length] as TestAccount, i % 2))
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
  tally.wallS = (performance.now() - started) / 1000
  const cpuAfter = pairCpu(pair)
  tally.appCpuMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
  return tally
}

function merge(parts: readonly Tally[]): Tally {
  const out = emptyTally()
  for (const part of parts) {
    out.completed += part.completed
    out.lost += part.lost
    out.crossed += part.crossed
    out.notRun += part.notRun
    out.samples.push(...part.samples.slice(0, 5 - out.samples.length))
    for (const step of STEPS) out.times[step].push(...part.times[step])
    out.wallS += part.wallS
  }
  const cpu = parts.map((p) => p.appCpuMs)
  out.appCpuMs = cpu.some((c) => c === null) ? null : cpu.reduce((sum: number, c) => sum + (c as number), 0)
  return out
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}

const ms = (n: number) => (Number.isNaN(n) ? "n/a" : n.toFixed(1))
const signed = (n: number) => (Number.isNaN(n) ? "n/a" : `${n >= 0 ? "+" : ""}${n.toFixed(1)}`)

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
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")
  console.log(`node ${process.version}, ${cpus().length} cores, load average before: ${load()}`)
  const accounts: TestAccount[] = Array.from({ length: ACCOUNTS }, (_, i) => ({
    sub: `load-${i}`,
    email: `load-${i}@example.test`,
    name: `Load ${i}`,
  }))
  let redis: RedisServer | undefined
  let idp: OidcServer | undefined
  const pairs: Pair[] = []
  try {
    redis = await startRedis()
    const ports: number[] = []
    while (ports.length < 4) {
      const port = await freePort()
      if (!ports.includes(port)) ports.push(port)
    }
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
      const warm = await run(pair, idp, accounts, WARMUP, 5, 60)
      if (warm.completed !== WARMUP) throw new Error(`${pair.store}: warm-up failed: ${warm.samples.join("; ")}`)
    }

    // unloaded: one sign-in at a time, the stores alternating, so both see the same machine
    const unloaded: Record<Store, Tally> = { redis: emptyTally(), cookie: emptyTally() }
    const unloadedStart = performance.now()
    for (let i = 0; i < UNLOADED * 2; i++) {
      const store = STORES[i % 2] as Store
      record(unloaded[store], await signIn(pairOf(store), idp, accounts[i % accounts.length] as TestAccount, i % 2))
    }
    for (const store of STORES) unloaded[store].wallS = (performance.now() - unloadedStart) / 1000 / 2
    printTallies(`unloaded: ${UNLOADED} sign-ins per store, one at a time (stores alternating)`, unloaded)

    // under load, in halves A B B A so that a machine getting busier or quieter favours neither store
    const halves: Record<Store, Tally[]> = { redis: [], cookie: [] }
    for (const store of [...STORES, ...[...STORES].reverse()]) {
      const count = halves[store].length === 0 ? Math.ceil(SIGNINS / 2) : Math.floor(SIGNINS / 2)
      halves[store].push(await run(pairOf(store), idp, accounts, count, CONCURRENCY, CAP_S / 2))
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
    console.log(`(${((Date.now() - began) / 1000).toFixed(0)} s; load average after: ${load()})`)
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
