/**
 * Soak: mixed credentials sign-ins and session reads against each app in turn, its memory sampled along
 * the way, from load generators in their own processes (half the connections sign in, half read).
 *
 * `npm run bench:soak -- --soak=600` (ten minutes per app; `--json` prints the results as JSON) starts
 * both apps itself with `--expose-gc`, so every sample is taken right after a full garbage collection
 * (`GET /__gc`): the heap that survives is the honest figure for growth, RSS alone swings with the
 * collector's timing. Both apps run in one process each for the whole run; only one is under load at a
 * time. `npm run bench` calls {@link soakApps} too (`--soak=<seconds>`, 20 by default).
 *
 * Growth is the slope of a least-squares line through the samples after the warm-up (the first tenth of
 * the run, at least 10 s: JIT and the young generation settle there), times the fitted span; the end
 * less the start is reported beside it.
 *
 * RSS after a load depends on how much the load allocated, and the faster app serves more requests in
 * the same time. So besides the timed soak each app is also given a fixed number of requests on a fresh
 * process ({@link countRun}: by default as many as the app that served fewer served in its soak;
 * `--soak-count=<n>` sets it), with no GC forced along the way. Every RSS figure is read twice: as it
 * is, and after a full GC (`--expose-gc`): the RSS right after start, after the timed soak and after the
 * fixed count.
 */
import { loadavg } from "node:os"
import { pathToFileURL } from "node:url"
import { type App, LABEL, SIDES, type Side, freePort, runLoadgen, startApp, stopApp } from "./children.js"
import type { CannonJob } from "./loadgen.js"
import { CSRF_COOKIE, SESSION_COOKIE } from "./shared.js"
import { cookiePair } from "./verify.js"

/** One sample, taken after a full GC when the app runs with `--expose-gc` (bytes; `t` in seconds). */
export interface SoakSample {
  t: number
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
}

export interface SoakResult {
  seconds: number
  /** Whether the samples follow a forced full GC (the app ran with `--expose-gc`). */
  gc: boolean
  /** Samples: before the load (t = 0), every twentieth of the run under load, and after it ended. */
  curve: SoakSample[]
  /** Seconds of warm-up left out of the fitted lines. */
  warmupS: number
  /** Growth over the fitted span (bytes), from the least-squares slope of RSS and of the heap after GC. */
  rssGrowth: number
  heapGrowth: number
  /** The last sample under load less the first one after the warm-up, bytes (RSS). */
  growth: number
  /** RSS after the load ended (after a GC when `gc`), bytes. */
  rssAfter: number
  /** RSS right after the load ended, before the GC of `rssAfter`. */
  rssAfterNoGc: number
  /** RSS right after the app started, before any request (the t = 0 sample is the same after GC). */
  idle: RssPair
  /** The same app given a fixed number of requests on a fresh process; set by {@link soakApps}. */
  sameCount?: CountResult
  requests: number
  bad: number
  /** The 1-minute load average of the machine at the start and at the end. */
  loadavg: [number, number]
}

/** RSS read as it is, then right after a full GC (with the heap that survives it), bytes. */
export interface RssPair {
  rss: number
  rssGc: number
  heapGc: number
  heapTotalGc: number
}

/** A fixed number of requests on a fresh app process ({@link countRun}). */
export interface CountResult {
  requests: number
  bad: number
  seconds: number
  /** Right after start, before any request. */
  idle: RssPair
  /** Right after the last request. */
  after: RssPair
}

type Load = Pick<CannonJob, "request" | "verify">

interface Gc {
  gc: boolean
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
}

async function sampleOf(app: App, t: number): Promise<{ gc: boolean; sample: SoakSample }> {
  const res = await fetch(`${app.base}/__gc`)
  const m = (await res.json()) as Gc
  const sample = { t, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers }
  return { gc: m.gc, sample }
}

/** RSS as it is (`GET /__rss`, no GC), then after a full GC (`GET /__gc`). */
async function rssPair(app: App): Promise<RssPair> {
  const { rss } = (await (await fetch(`${app.base}/__rss`)).json()) as { rss: number }
  const { sample } = await sampleOf(app, 0)
  return { rss, rssGc: sample.rss, heapGc: sample.heapUsed, heapTotalGc: sample.heapTotal }
}

/** Least-squares slope of `ys` over `xs` (per unit of x); 0 with fewer than two distinct xs. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length)
  if (n < 2) return 0
  let sx = 0
  let sy = 0
  for (let i = 0; i < n; i++) {
    sx += xs[i] as number
    sy += ys[i] as number
  }
  const mx = sx / n
  const my = sy / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx
    num += dx * ((ys[i] as number) - my)
    den += dx * dx
  }
  return den === 0 ? 0 : num / den
}

/** The sign-in (a valid CSRF cookie and token) and session-read requests of the soak, for one app. */
export async function soakLoads(app: App): Promise<Load[]> {
  const csrf = await fetch(`${app.base}/auth/csrf`)
  const { csrfToken } = (await csrf.json()) as { csrfToken?: string }
  const csrfCookie = cookiePair(csrf.headers.getSetCookie(), CSRF_COOKIE)
  if (!csrfToken || !csrfCookie) throw new Error(`${app.side}: no CSRF token or cookie`)
  const callbackUrl = `${app.base}/dashboard`
  const body = new URLSearchParams({ csrfToken, username: "bench", password: "bench", callbackUrl }).toString()
  const form = { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie }
  const signIn = await fetch(`${app.base}/auth/callback/credentials`, { method: "POST", redirect: "manual", headers: form, body })
  const session = cookiePair(signIn.headers.getSetCookie(), SESSION_COOKIE)
  if (!session) throw new Error(`${app.side}: the sign-in set no session cookie (status ${signIn.status})`)
  return [
    { request: { method: "POST", path: "/auth/callback/credentials", headers: form, body }, verify: { kind: "signIn", callbackUrl } },
    { request: { method: "GET", path: "/auth/session", headers: { cookie: session } }, verify: { kind: "session" } },
  ]
}

/**
 * Runs `loads` side by side against `app` for `seconds`, sampling its memory every twentieth of the run.
 * `idle` is the app's RSS before any request (read by the caller right after start); without it the
 * first sample stands for it.
 */
export async function soak(app: App, seconds: number, connections: number, loads: readonly Load[], idle?: RssPair): Promise<SoakResult> {
  const load0 = loadavg()[0] as number
  const per = Math.max(1, Math.round(connections / loads.length))
  const started = performance.now()
  const at = () => Math.round((performance.now() - started) / 100) / 10
  const idleRss = idle ? undefined : ((await (await fetch(`${app.base}/__rss`)).json()) as { rss: number }).rss
  const first = await sampleOf(app, 0)
  const curve = [first.sample]
  idle ??= { rss: idleRss ?? 0, rssGc: first.sample.rss, heapGc: first.sample.heapUsed, heapTotalGc: first.sample.heapTotal }
  const jobs = loads.map((load) =>
    runLoadgen<{ ok: number; bad: number }>({
      mode: "cannon",
      base: app.base,
      connections: per,
      durationS: seconds,
      ...load,
    } satisfies CannonJob),
  )
  let done = false
  const all = Promise.all(jobs).finally(() => {
    done = true
  })
  const every = (seconds * 1000) / 20
  for (let k = 1; !done; k++) {
    const wait = started + k * every - performance.now()
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)))])
    if (!done) curve.push((await sampleOf(app, at())).sample)
  }
  const results = await all
  const afterNoGc = ((await (await fetch(`${app.base}/__rss`)).json()) as { rss: number }).rss
  const after = await sampleOf(app, at())
  const warmupS = Math.max(10, seconds / 10)
  const fitted = curve.filter((s) => s.t >= warmupS)
  const span = fitted.length > 1 ? (fitted[fitted.length - 1] as SoakSample).t - (fitted[0] as SoakSample).t : 0
  const ts = fitted.map((s) => s.t)
  curve.push(after.sample)
  return {
    seconds,
    gc: first.gc,
    curve,
    warmupS,
    rssGrowth:
      slope(
        ts,
        fitted.map((s) => s.rss),
      ) * span,
    heapGrowth:
      slope(
        ts,
        fitted.map((s) => s.heapUsed),
      ) * span,
    growth: fitted.length > 1 ? (fitted[fitted.length - 1] as SoakSample).rss - (fitted[0] as SoakSample).rss : 0,
    rssAfter: after.sample.rss,
    rssAfterNoGc: afterNoGc,
    idle,
    requests: results.reduce((n, r) => n + r.ok + r.bad, 0),
    bad: results.reduce((n, r) => n + r.bad, 0),
    loadavg: [load0, loadavg()[0] as number],
  }
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`

/** Lines that describe a soak result: the curve (RSS / heap after GC) and the growth figures. */
export function soakReport(side: Side, r: SoakResult): string[] {
  const heap = r.gc ? "heap after GC" : "heap (no GC: run without --expose-gc)"
  return [
    `${LABEL[side]}: ${r.requests} requests (${r.bad} bad) in ${r.seconds} s, load average ${r.loadavg[0].toFixed(1)} → ${r.loadavg[1].toFixed(1)}`,
    `  t (s)    ${r.curve.map((s) => String(Math.round(s.t)).padStart(6)).join("")}`,
    `  RSS MB   ${r.curve.map((s) => (s.rss / 1048576).toFixed(1).padStart(6)).join("")}`,
    `  heap MB  ${r.curve.map((s) => (s.heapUsed / 1048576).toFixed(1).padStart(6)).join("")}   (${heap})`,
    `  ext MB   ${r.curve.map((s) => (s.external / 1048576).toFixed(1).padStart(6)).join("")}   (external, of it array buffers at the end ${mb(r.curve[r.curve.length - 1]?.arrayBuffers ?? 0)})`,
    `  growth after ${r.warmupS} s of warm-up (least-squares line): RSS ${mb(r.rssGrowth)}, heap ${mb(r.heapGrowth)}; RSS end − start ${mb(r.growth)}; RSS after the load ${mb(r.rssAfter)}`,
    `  RSS (as it is / after a full GC): idle after start ${pair(r.idle)}; after the ${r.seconds} s soak ${mb(r.rssAfterNoGc)} / ${mb(r.rssAfter)}`,
    ...(r.sameCount
      ? [
          `  fresh process, ${r.sameCount.requests} requests (${r.sameCount.bad} bad) in ${r.sameCount.seconds.toFixed(1)} s, no GC forced: ` +
            `idle ${pair(r.sameCount.idle)}, after ${pair(r.sameCount.after)} (heap after GC ${mb(r.sameCount.after.heapGc)})`,
        ]
      : []),
  ]
}

/** "rss / rss after GC" in MB. */
export const pair = (p: Pick<RssPair, "rss" | "rssGc">) => `${mb(p.rss)} / ${mb(p.rssGc)}`

/**
 * Starts a fresh app with `--expose-gc` and sends it `amount` requests of `loads`' kinds (half each, from
 * load generators of their own, no GC forced along the way); its RSS right after start and right after
 * the last request, each as it is and after a full GC.
 */
export async function countRun(side: Side, amount: number, connections: number): Promise<CountResult> {
  const app = await startApp(side, await freePort(), {}, ["--expose-gc"])
  try {
    const idle = await rssPair(app)
    const loads = await soakLoads(app)
    const per = Math.max(1, Math.round(connections / loads.length))
    const started = performance.now()
    const results = await Promise.all(
      loads.map((load) =>
        runLoadgen<{ ok: number; bad: number }>({
          mode: "cannon",
          base: app.base,
          connections: per,
          durationS: 3600,
          amount: Math.ceil(amount / loads.length),
          ...load,
        } satisfies CannonJob),
      ),
    )
    const seconds = (performance.now() - started) / 1000
    const after = await rssPair(app)
    return {
      requests: results.reduce((n, r) => n + r.ok + r.bad, 0),
      bad: results.reduce((n, r) => n + r.bad, 0),
      seconds,
      idle,
      after,
    }
  } finally {
    await stopApp(app)
  }
}

/**
 * Starts both apps with `--expose-gc` and soaks each in turn (authchart first), then stops them; then
 * gives each a fresh process and the same number of requests (`count`, by default the smaller of the two
 * soaks' request counts; 0 skips), one app after the other.
 */
export async function soakApps(seconds: number, connections: number, count?: number): Promise<Record<Side, SoakResult>> {
  const apps = {} as Record<Side, App>
  const out = {} as Record<Side, SoakResult>
  try {
    const idle = {} as Record<Side, RssPair>
    for (const side of SIDES) {
      apps[side] = await startApp(side, await freePort(), {}, ["--expose-gc"])
      idle[side] = await rssPair(apps[side])
    }
    for (const side of SIDES) out[side] = await soak(apps[side], seconds, connections, await soakLoads(apps[side]), idle[side])
  } finally {
    for (const side of SIDES) if (apps[side]) await stopApp(apps[side])
  }
  const amount = count ?? Math.min(...SIDES.map((side) => out[side].requests))
  if (amount > 0) for (const side of SIDES) out[side].sameCount = await countRun(side, amount, connections)
  return out
}

async function main(): Promise<void> {
  const seconds = Number(process.argv.find((a) => a.startsWith("--soak="))?.slice(7) ?? 600)
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
  const countArg = process.argv.find((a) => a.startsWith("--soak-count="))?.slice(13)
  console.error(`soak: ${seconds} s of mixed sign-ins and session reads per app, ${connections} connections, samples after a full GC`)
  const results = await soakApps(seconds, connections, countArg === undefined ? undefined : Number(countArg))
  const report = SIDES.map((side) => soakReport(side, results[side]).join("\n")).join("\n")
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    console.error(report)
  } else console.log(report)
  if (SIDES.some((side) => results[side].bad > 0 || (results[side].sameCount?.bad ?? 0) > 0)) process.exitCode = 1
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}
