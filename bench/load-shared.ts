/**
 * The sign-in load both Redis benches drive (bench/load-redis.ts: Redis flow store against the cookie
 * store; bench/load-cluster.ts: Redis Cluster against one Redis): complete OIDC sign-ins through two app
 * instances, every request on the other instance than the one before, each one checked (completed, lost,
 * crossed), with per-step times, the app processes' CPU and percentiles.
 */
import { readFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import type { AppProcess } from "../tests/support/app-process.js"
import { HttpBrowser } from "../tests/support/app-process.js"
import type { AuthorizeResult, OidcServer, TestAccount } from "../tests/support/oidc-provider.js"

export const SESSION = "authjs.session-token"
export const STEPS = ["csrf", "signin POST", "IdP", "callback", "session read", "total"] as const
export type Step = (typeof STEPS)[number]

/** Runs `work` when allowed: a queue in front of the instances and the provider. */
export type Gate = <T>(work: () => Promise<T>) => Promise<T>

/** A gate that lets at most `limit` pieces of work run at once, the others waiting in order. */
export function queueGate(limit: number): Gate {
  let running = 0
  const waiting: (() => void)[] = []
  return async (work) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await work()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}

type Outcome = { kind: "ok"; times: Record<Step, number> } | { kind: "crossed"; detail: string } | { kind: "lost"; detail: string }

export interface SignInOptions {
  /** Per-request timeout of the scripted browser. Default 10 s. */
  timeoutMs?: number
  /** Each half of the sign-in (csrf + POST; provider + callback + session read) passes this gate. */
  gate?: Gate
  /** Awaited between the halves, once the flow rests in the store (or the start failed). */
  atRest?: () => Promise<void>
}

/**
 * One complete sign-in as `account` on `apps` (csrf → POST /auth/signin/idp → the provider → the
 * callback → GET /auth/session), every request on the other instance than the one before. Step times
 * count from when the gate lets a half through; "total" is their sum.
 */
export async function signIn(
  apps: readonly AppProcess[],
  idp: OidcServer,
  account: TestAccount,
  first: number,
  options: SignInOptions = {},
): Promise<Outcome> {
  const gate = options.gate ?? ((work) => work())
  const browser = new HttpBrowser(
    apps.map((a) => a.base),
    first,
    options.timeoutMs ?? 10_000,
  )
  const times = {} as Record<Step, number>
  const timed = async <T>(step: Step, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      times[step] = performance.now() - started
    }
  }
  const finish = async (start: Awaited<ReturnType<HttpBrowser["send"]>>): Promise<Outcome> => {
    const answer = (await timed("IdP", () => idp.authorize(start.location as string, { account: account.sub }))) as AuthorizeResult
    if (answer.kind !== "redirect") return { kind: "lost", detail: `provider answered ${answer.kind}` }
    const callback = await timed("callback", () => browser.send(answer.url))
    if (callback.index === start.index) return { kind: "lost", detail: "the callback went to the starting instance" }
    if (callback.res.status !== 302 || !browser.cookie(SESSION)) {
      return { kind: "lost", detail: `callback → ${callback.res.status} ${callback.location}` }
    }
    const read = await timed("session read", () => browser.send("/auth/session"))
    const session = JSON.parse(read.text) as { user?: { email?: string } } | null
    times.total = STEPS.slice(0, -1).reduce((sum, step) => sum + (times[step] ?? 0), 0)
    const email = session?.user?.email
    if (!email) return { kind: "lost", detail: `no session after sign-in: ${read.text.slice(0, 120)}` }
    if (email !== account.email) return { kind: "crossed", detail: `logged in as ${account.email}, session of ${email}` }
    return { kind: "ok", times }
  }
  try {
    const start = await gate(async () => {
      const csrfToken = await timed("csrf", () => browser.csrf())
      return timed("signin POST", () => browser.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } }))
    }).finally(() => options.atRest?.())
    if (!start.location?.startsWith(`${idp.issuer}/`))
      return { kind: "lost", detail: `signin POST → ${start.res.status} ${start.location} ${start.text.slice(0, 120)}` }
    return await gate(() => finish(start))
  } catch (err) {
    return { kind: "lost", detail: `${(err as Error).name}: ${(err as Error).message}` }
  }
}

export interface Tally {
  completed: number
  lost: number
  crossed: number
  notRun: number
  samples: string[]
  times: Record<Step, number[]>
  wallS: number
  appCpuMs: number | null
}

export const emptyTally = (): Tally => ({
  completed: 0,
  lost: 0,
  crossed: 0,
  notRun: 0,
  samples: [],
  times: Object.fromEntries(STEPS.map((s) => [s, []])) as unknown as Record<Step, number[]>,
  wallS: 0,
  appCpuMs: null,
})

export function record(tally: Tally, outcome: Outcome): void {
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

/** CPU of `pids` so far, summed (null when one cannot be read). */
export function cpuOf(pids: readonly number[]): number | null {
  const each = pids.map(cpuMs)
  return each.some((c) => c === null) ? null : each.reduce((s: number, c) => s + (c as number), 0)
}

export interface RunOptions {
  count: number
  concurrency: number
  /** No sign-in starts after this many seconds. */
  capS: number
  /** How each sign-in runs (timeouts, gate, the pause at rest). */
  signIn?: SignInOptions
}

/** `count` sign-ins, at most `concurrency` in flight, none started after `capS`. */
export async function run(
  apps: readonly AppProcess[],
  idp: OidcServer,
  accounts: readonly TestAccount[],
  options: RunOptions,
): Promise<Tally> {
  const tally = emptyTally()
  const pids = apps.map((a) => a.pid)
  const cpuBefore = cpuOf(pids)
  const started = performance.now()
  const deadline = started + options.capS * 1000
  let next = 0
  const worker = async () => {
    while (next < options.count) {
      const i = next++
      if (performance.now() > deadline) {
        tally.notRun++
        continue
      }
      record(tally, await signIn(apps, idp, accounts[i % accounts.length] as TestAccount, i % 2, options.signIn))
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker))
  tally.wallS = (performance.now() - started) / 1000
  const cpuAfter = cpuOf(pids)
  tally.appCpuMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
  return tally
}

export function merge(parts: readonly Tally[]): Tally {
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

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}

export const ms = (n: number) => (Number.isNaN(n) ? "n/a" : n.toFixed(1))
export const signed = (n: number) => (Number.isNaN(n) ? "n/a" : `${n >= 0 ? "+" : ""}${n.toFixed(1)}`)

/** Two free loopback ports per pair of instances, all different. */
export async function freePorts(count: number, freePort: () => Promise<number>): Promise<number[]> {
  const ports: number[] = []
  while (ports.length < count) {
    const port = await freePort()
    if (!ports.includes(port)) ports.push(port)
  }
  return ports
}

/** The load average, as printed before and after a run. */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")

/** The machine line every load bench prints first. */
export const machine = () => `node ${process.version}, ${cpus().length} cores, load average before: ${loadAverage()}`

/** `count` IdP accounts `load-<i>` (the bench signs in as account i mod count). */
export const loadAccounts = (count: number): TestAccount[] =>
  Array.from({ length: count }, (_, i) => ({ sub: `load-${i}`, email: `load-${i}@example.test`, name: `Load ${i}` }))

/** Resolves every `arrive()` once `count` arrived, after `whenFull` (which sees everyone waiting). */
export function barrier(count: number, whenFull: () => Promise<void> = async () => {}): () => Promise<void> {
  let arrived = 0
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return async () => {
    arrived += 1
    if (arrived === count) await whenFull().finally(open)
    return opened
  }
}
