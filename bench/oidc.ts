/**
 * The OIDC part of `npm run bench` (bench/run.ts; `npm run bench:oidc`, bench/oidc-run.ts, runs it alone):
 * complete sign-ins against a real OpenID provider, the app child's CPU per sign-in, and its split by
 * thread (bench/threads.ts: the main thread and its wake-ups apart from V8's and libuv's threads).
 */
import type { OidcServer } from "../tests/support/oidc-provider.js"
import { type App, LABEL, SIDES, type Side, cpuMs, rssOf } from "./children.js"
import { IDP_PROVIDER_ID, SESSION_COOKIE } from "./shared.js"
import { type ThreadUse, sampleThreads, threadUse } from "./threads.js"

/** BENCH_OIDC=0 skips the OIDC sign-in bench (and the provider). */
export const OIDC_ENABLED = process.env.BENCH_OIDC !== "0"
/** Sign-in loops in flight (BENCH_OIDC_CONCURRENCY). */
export const OIDC_CONCURRENCY = Number(process.env.BENCH_OIDC_CONCURRENCY ?? 8)
/** Measured seconds per side, in two halves (BENCH_OIDC_DURATION). */
export const OIDC_DURATION_S = Number(process.env.BENCH_OIDC_DURATION ?? 5)
/**
 * Warm-up seconds per side before the measured halves (BENCH_OIDC_WARMUP). 20 s is 2,000–3,000 sign-ins
 * here: a sign-in keeps getting cheaper for a few thousand while V8 compiles its code (authchart 2.34 →
 * 1.59 → 1.53 → 1.39 ms, Auth.js 6.71 → 4.79 → 4.04 → 4.40 over four 7 s rounds of `bench:oidc`), and the
 * side-by-side table's other routes are measured after thousands of requests too. With 2 s (the setting
 * until 2026-11-26) the bench measured sign-ins ~260–910 of each process.
 */
export const OIDC_WARMUP_S = Number(process.env.BENCH_OIDC_WARMUP ?? 20)
/**
 * Unmeasured seconds of sign-ins on a side right before each of its measured halves
 * (BENCH_OIDC_REWARM). One side runs at a time, so each half follows an idle stretch of its app, and an
 * app costs more for a while after it idled: both do. After 25 s idle (`BENCH_OIDC_IDLE_CURVE=25`,
 * 2026-11-26, 1 s windows) authchart cost 2.09 → 1.58 → 1.25 … 1.09–1.17 ms per sign-in and Auth.js
 * 6.54 → 5.31 → 4.54 … 3.79–4.03 ms, settling after 5–8 s in both. V8's log shows why: a collection in
 * the idle stretch frees hidden classes that optimised code depends on, about a hundred functions
 * (Node's HTTP, URL and stream code as much as either app's) are deoptimised at once, and the compiler
 * threads optimise them again under load. With a 2 s re-warm each half caught its app partway down
 * that curve, at a different point each time, so the ratio swung 2.1–3.4× from round to round on the
 * same code. 8 s lets both apps settle; the curve itself is what a first sign-in after an idle costs.
 */
export const OIDC_REWARM_S = Number(process.env.BENCH_OIDC_REWARM ?? 8)
/** Every Nth verified sign-in's session cookie is checked with GET /auth/session (after the timed window). */
export const OIDC_SESSION_SAMPLE_EVERY = 10
const OIDC_SESSION_SAMPLE_MAX = 50
const OIDC_FETCH_TIMEOUT_MS = 10_000
/** The bench provider's client secret (one client per side, `idpClientId`). */
export const IDP_CLIENT_SECRET = "bench-idp-secret-0123456789abcdef"
/** The bench provider's client id for a side. */
export const idpClientId = (side: Side) => `bench-${side}`

/** A per-sign-in cookie jar (one browser, one host), enough for Set-Cookie / deletions. */
class Jar {
  private readonly pairs = new Map<string, string>()
  store(res: Response): void {
    for (const sc of res.headers.getSetCookie()) {
      const [first = "", ...attrs] = sc.split(/;\s*/)
      const eq = first.indexOf("=")
      if (eq <= 0) continue
      const name = first.slice(0, eq)
      const expired =
        first.length === eq + 1 ||
        attrs.some((a) => /^max-age=\s*(0|-\d+)$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()))
      if (expired) this.pairs.delete(name)
      else this.pairs.set(name, first)
    }
  }
  get(name: string): string | undefined {
    return this.pairs.get(name)
  }
  names(): string[] {
    return [...this.pairs.keys()]
  }
  header(): string {
    return [...this.pairs.values()].join("; ")
  }
}

/** The steps of one sign-in, in order: three requests to the app and the provider's part between them. */
export type OidcStep = "csrf" | "start" | "provider" | "callback" | "done"

type OidcAttempt =
  | { ok: true; totalMs: number; appMs: number; idpMs: number; sessionCookie: string; trace: string[] }
  | { ok: false; problem: string }

/**
 * One complete OIDC sign-in as a browser does it, against a real OpenID provider (oidc-provider, in
 * this process, tests/support/oidc-provider.ts): GET /auth/csrf → POST /auth/signin/bench-idp →
 * the provider's authorization endpoint with scripted login + consent → GET the app's callback →
 * a redirect to the callbackUrl with a session cookie. The provider's work is shared by both sides;
 * the app-side CPU per sign-in (child /proc) is the fair comparison. `gate`, when given, is awaited
 * before each of the four steps and once at the end (bench/oidc-run.ts runs steps phase by phase with it).
 */
export async function oidcSignIn(app: App, idp: OidcServer, gate?: (step: OidcStep) => Promise<void>): Promise<OidcAttempt> {
  const t0 = performance.now()
  let appMs = 0
  const jar = new Jar()
  const trace: string[] = []
  const appFetch = async (url: string, init: { method?: string; body?: string } = {}) => {
    const started = performance.now()
    const headers: Record<string, string> = {}
    const cookie = jar.header()
    if (cookie) headers.cookie = cookie
    if (init.body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
    const res = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(OIDC_FETCH_TIMEOUT_MS),
    })
    const body = await res.text()
    appMs += performance.now() - started
    jar.store(res)
    trace.push(
      `${init.method ?? "GET"} ${new URL(url).pathname} → ${res.status} sets [${res.headers
        .getSetCookie()
        .map((c) => c.slice(0, c.indexOf("=")))
        .join(", ")}]`,
    )
    return { res, body }
  }
  try {
    // 1. CSRF token (+ its cookie).
    await gate?.("csrf")
    const csrf = await appFetch(`${app.base}/auth/csrf`)
    if (csrf.res.status !== 200) return { ok: false, problem: `csrf: status ${csrf.res.status}` }
    const { csrfToken } = JSON.parse(csrf.body) as { csrfToken?: string }
    if (!csrfToken) return { ok: false, problem: "csrf: no csrfToken" }

    // 2. Sign-in POST → redirect to the provider's authorization endpoint.
    const callbackUrl = `${app.base}/dashboard`
    await gate?.("start")
    const start = await appFetch(`${app.base}/auth/signin/${IDP_PROVIDER_ID}`, {
      method: "POST",
      body: new URLSearchParams({ csrfToken, callbackUrl }).toString(),
    })
    const authz = start.res.headers.get("location") ?? ""
    if (![302, 303].includes(start.res.status) || !authz.startsWith(`${idp.issuer}/`)) {
      return { ok: false, problem: `signin POST: status ${start.res.status} location=${authz} ${start.body.slice(0, 160)}` }
    }

    // 3. The provider: scripted login + consent, back to the app's redirect_uri.
    await gate?.("provider")
    const idpStarted = performance.now()
    const answer = await idp.authorize(authz)
    const idpMs = performance.now() - idpStarted
    if (answer.kind !== "redirect") return { ok: false, problem: `provider answered ${answer.kind}` }
    const back = new URL(answer.url)
    if (`${back.origin}${back.pathname}` !== `${app.base}/auth/callback/${IDP_PROVIDER_ID}` || !back.searchParams.get("code")) {
      return { ok: false, problem: `provider redirect ${answer.url}` }
    }
    trace.push(`provider → ${back.pathname}?${[...back.searchParams.keys()].join("&")}`)

    // 4. The callback: code exchange in the app → redirect to callbackUrl with a session cookie.
    await gate?.("callback")
    const cb = await appFetch(back.href)
    const location = cb.res.headers.get("location")
    const sessionCookie = jar.get(SESSION_COOKIE)
    if (![302, 303].includes(cb.res.status) || location !== callbackUrl || !sessionCookie) {
      return {
        ok: false,
        problem: `callback: status ${cb.res.status} location=${location} session cookie=${!!sessionCookie} ${cb.body.slice(0, 160)}`,
      }
    }
    await gate?.("done")
    return {
      ok: true,
      totalMs: performance.now() - t0,
      appMs,
      idpMs,
      sessionCookie,
      trace: [...trace, `cookies after: ${jar.names().join(", ")}`],
    }
  } catch (err) {
    return { ok: false, problem: `${(err as Error).name}: ${(err as Error).message}` }
  }
}

/** The session a verified OIDC sign-in made: the provider's first account. */
async function checkOidcSession(app: App, idp: OidcServer, sessionCookie: string): Promise<string | null> {
  try {
    const res = await fetch(`${app.base}/auth/session`, {
      headers: { cookie: sessionCookie },
      signal: AbortSignal.timeout(OIDC_FETCH_TIMEOUT_MS),
    })
    const body = await res.text()
    const want = idp.accounts[0]!
    const s = JSON.parse(body) as { user?: { name?: unknown; email?: unknown }; expires?: unknown } | null
    if (res.status === 200 && s?.user?.email === want.email && s.user.name === want.name && typeof s.expires === "string") return null
    return `GET /auth/session → ${res.status} ${body.slice(0, 160)}`
  } catch (err) {
    return `GET /auth/session: ${(err as Error).message}`
  }
}

interface OidcRaw {
  totals: number[]
  apps: number[]
  idps: number[]
  ok: number
  failed: number
  failSamples: string[]
  cookies: string[]
  wallS: number
  appCpuMs: number | null
  /** The app's CPU by thread (main thread apart from V8's and libuv's), from /proc schedstat. */
  threads: ThreadUse
  runnerCpuMs: number
}

/** OIDC_CONCURRENCY loops of complete sign-ins for `seconds` (sign-ins in flight at the end finish and count). */
export async function oidcLoad(app: App, idp: OidcServer, seconds: number): Promise<OidcRaw> {
  const raw: OidcRaw = {
    totals: [],
    apps: [],
    idps: [],
    ok: 0,
    failed: 0,
    failSamples: [],
    cookies: [],
    wallS: 0,
    appCpuMs: null,
    threads: { mainMs: 0, mainRuns: 0, otherMs: 0, otherThreads: 0 },
    runnerCpuMs: 0,
  }
  const cpuBefore = cpuMs(app.child.pid)
  const threadsBefore = sampleThreads(app.child.pid)
  const runnerBefore = process.cpuUsage()
  const started = performance.now()
  const end = started + seconds * 1000
  const loop = async () => {
    while (performance.now() < end) {
      const r = await oidcSignIn(app, idp)
      if (r.ok) {
        raw.ok++
        raw.totals.push(r.totalMs)
        raw.apps.push(r.appMs)
        raw.idps.push(r.idpMs)
        if (raw.ok % OIDC_SESSION_SAMPLE_EVERY === 1) raw.cookies.push(r.sessionCookie)
      } else {
        raw.failed++
        if (raw.failSamples.length < 5) raw.failSamples.push(r.problem)
      }
    }
  }
  await Promise.all(Array.from({ length: OIDC_CONCURRENCY }, loop))
  raw.wallS = (performance.now() - started) / 1000
  const cpuAfter = cpuMs(app.child.pid)
  raw.threads = threadUse(app.child.pid, threadsBefore, sampleThreads(app.child.pid))
  const runner = process.cpuUsage(runnerBefore)
  raw.runnerCpuMs = (runner.user + runner.system) / 1000
  raw.appCpuMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
  return raw
}

function mergeRaw(parts: OidcRaw[]): OidcRaw {
  return {
    totals: parts.flatMap((p) => p.totals),
    apps: parts.flatMap((p) => p.apps),
    idps: parts.flatMap((p) => p.idps),
    ok: parts.reduce((s, p) => s + p.ok, 0),
    failed: parts.reduce((s, p) => s + p.failed, 0),
    failSamples: parts.flatMap((p) => p.failSamples).slice(0, 5),
    cookies: parts.flatMap((p) => p.cookies),
    wallS: parts.reduce((s, p) => s + p.wallS, 0),
    appCpuMs: parts.some((p) => p.appCpuMs === null) ? null : parts.reduce((s, p) => s + (p.appCpuMs ?? 0), 0),
    threads: {
      mainMs: parts.reduce((s, p) => s + p.threads.mainMs, 0),
      mainRuns: parts.reduce((s, p) => s + p.threads.mainRuns, 0),
      otherMs: parts.reduce((s, p) => s + p.threads.otherMs, 0),
      otherThreads: Math.max(...parts.map((p) => p.threads.otherThreads)),
    },
    runnerCpuMs: parts.reduce((s, p) => s + p.runnerCpuMs, 0),
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export interface OidcResult {
  signInsPerSec: number
  attempted: number
  ok: number
  failed: number
  failSamples: string[]
  /** Complete sign-in, ms (csrf → POST → provider → callback). */
  p50: number
  p99: number
  /** The three app requests of one sign-in (csrf + sign-in POST + callback), wall ms. */
  appP50: number
  appP99: number
  /** The provider's part (scripted login + consent, in this process), wall ms. */
  idpP50: number
  wallS: number
  /** App child CPU (user + sys) over the run ÷ verified sign-ins, ms (failed attempts count against it). */
  appCpuMsPerSignIn: number | null
  /**
   * The same CPU by thread (/proc schedstat, exact): the main thread's ms and wake-ups per sign-in, and
   * the other threads' ms (V8's workers: concurrent GC and compilation; libuv's pool).
   */
  appThreads: { mainMs: number; mainRuns: number; otherMs: number; otherThreads: number } | null
  /** This process' CPU per sign-in: the provider (incl. its token endpoint) plus the driving client, ms. */
  runnerCpuMsPerSignIn: number
  sessionsChecked: number
  sessionsBad: number
  sessionBadSamples: string[]
}

async function summarizeOidc(app: App, idp: OidcServer, raw: OidcRaw): Promise<OidcResult> {
  // Session checks run after the timed window, so they add nothing to the CPU figures.
  const sample = raw.cookies.slice(0, OIDC_SESSION_SAMPLE_MAX)
  const problems = (await Promise.all(sample.map((c) => checkOidcSession(app, idp, c)))).filter((p): p is string => p !== null)
  const attempted = raw.ok + raw.failed
  return {
    signInsPerSec: raw.wallS > 0 ? raw.ok / raw.wallS : 0,
    attempted,
    ok: raw.ok,
    failed: raw.failed,
    failSamples: raw.failSamples,
    p50: percentile(raw.totals, 50),
    p99: percentile(raw.totals, 99),
    appP50: percentile(raw.apps, 50),
    appP99: percentile(raw.apps, 99),
    idpP50: percentile(raw.idps, 50),
    wallS: raw.wallS,
    appCpuMsPerSignIn: raw.appCpuMs !== null && raw.ok > 0 ? raw.appCpuMs / raw.ok : null,
    appThreads:
      raw.ok > 0 && raw.threads.mainRuns > 0
        ? {
            mainMs: raw.threads.mainMs / raw.ok,
            mainRuns: raw.threads.mainRuns / raw.ok,
            otherMs: raw.threads.otherMs / raw.ok,
            otherThreads: raw.threads.otherThreads,
          }
        : null,
    runnerCpuMsPerSignIn: raw.ok > 0 ? raw.runnerCpuMs / raw.ok : 0,
    sessionsChecked: sample.length,
    sessionsBad: problems.length,
    sessionBadSamples: problems.slice(0, 5),
  }
}

export interface OidcSide {
  /** Set when the single checked sign-in before load failed: the side is not measured. */
  error?: string
  notes: string[]
  warm?: OidcResult
  result?: OidcResult
  /** The app's RSS right after its last measured half. */
  rssAfterLoad?: { rss: number; vmRss: number | null }
}

/** One sign-in per side with every step checked (and the session read back) before any load. */
async function oidcPrepare(app: App, idp: OidcServer): Promise<OidcSide> {
  const r = await oidcSignIn(app, idp)
  if (!r.ok) return { error: r.problem, notes: [] }
  const problem = await checkOidcSession(app, idp, r.sessionCookie)
  if (problem) return { error: `session after OIDC sign-in: ${problem}`, notes: r.trace }
  const tokenBefore = idp.tokenRequests.count
  const again = await oidcSignIn(app, idp)
  const notes = [
    ...r.trace.map((t) => `oidc: ${t}`),
    `oidc: token endpoint requests per sign-in: ${idp.tokenRequests.count - tokenBefore}, client auth ${idp.tokenRequests.lastAuth}`,
  ]
  if (!again.ok) return { error: `second sign-in: ${again.problem}`, notes }
  return { notes }
}

/** "main 1.80 ms in 9.1 wake-ups + other threads 0.40 ms": the app's CPU per sign-in by thread. */
function threadsNote(r: OidcResult): string {
  const t = r.appThreads
  if (!t) return "threads n/a"
  return `main thread ${t.mainMs.toFixed(2)} ms in ${t.mainRuns.toFixed(1)} wake-ups + ${t.otherThreads} other threads ${t.otherMs.toFixed(2)} ms`
}

/**
 * Per side: a warm-up (checked, reported on stderr), then the measured run split in two halves in the
 * order A B B A so drifting background load hits both sides alike, each half right after an unmeasured
 * re-warm of its side (`OIDC_REWARM_S`). One side under load at a time.
 */
export async function benchOidc(apps: Record<Side, App>, idp: OidcServer): Promise<Record<Side, OidcSide>> {
  const out = {} as Record<Side, OidcSide>
  for (const side of SIDES) {
    out[side] = await oidcPrepare(apps[side], idp)
    for (const n of out[side].notes) console.error(`  ${LABEL[side]}: ${n}`)
    if (out[side].error) console.error(`  ${LABEL[side]}: OIDC sign-in FAILED before load: ${out[side].error}`)
  }
  const live = SIDES.filter((side) => !out[side].error)
  for (const side of live) {
    const warm = await summarizeOidc(apps[side], idp, await oidcLoad(apps[side], idp, OIDC_WARMUP_S))
    out[side].warm = warm
    console.error(
      `  ${LABEL[side].padEnd(14)} OIDC warm-up    ${warm.signInsPerSec.toFixed(1).padStart(7)} sign-ins/s  ` +
        `app ${warm.appCpuMsPerSignIn?.toFixed(2) ?? "?"} CPU ms/sign-in (${threadsNote(warm)})  ok=${warm.ok} failed=${warm.failed}` +
        (warm.failSamples.length ? `  <-- ${warm.failSamples.join(" | ")}` : ""),
    )
  }
  const parts = { authchart: [], authjs: [] } as Record<Side, OidcRaw[]>
  const order = [...live, ...[...live].reverse()]
  for (const [i, side] of order.entries()) {
    if (OIDC_REWARM_S > 0) await oidcLoad(apps[side], idp, OIDC_REWARM_S)
    parts[side].push(await oidcLoad(apps[side], idp, OIDC_DURATION_S / 2))
    if (order.lastIndexOf(side) === i) out[side].rssAfterLoad = await rssOf(apps[side])
  }
  for (const side of live) {
    const r = await summarizeOidc(apps[side], idp, mergeRaw(parts[side]))
    out[side].result = r
    const flag = r.failed || r.sessionsBad ? "  <-- PROBLEMS" : ""
    console.error(
      `  ${LABEL[side].padEnd(14)} OIDC sign-in    ${r.signInsPerSec.toFixed(1).padStart(7)} sign-ins/s  p50 ${r.p50.toFixed(0)} ms  p99 ${r.p99.toFixed(0)} ms  ` +
        `app ${r.appCpuMsPerSignIn?.toFixed(2) ?? "?"} CPU ms/sign-in (${threadsNote(r)})  runner ${r.runnerCpuMsPerSignIn.toFixed(2)} CPU ms/sign-in  ` +
        `ok=${r.ok} failed=${r.failed} sessions checked=${r.sessionsChecked} bad=${r.sessionsBad}${flag}`,
    )
  }
  return out
}
