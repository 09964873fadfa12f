/**
 * The rounds of `npm run bench`'s HTTP routes (bench/run.ts): every route is measured in BENCH_ROUNDS
 * rounds, each one window per side with the two windows adjacent in time. A side's figure for a route
 * is pooled over its rounds (`pool`); a comparison of the two sides is taken round by round, from the
 * two windows of the same round, and read as the median of those ratios (`paired`), so one noisy window
 * moves one round's ratio, not the verdict.
 */
import type { LoopDelay } from "./children.js"

/** One measured window of one route on one side (or several pooled, `pool`). */
export interface LoadResult {
  okPerSec: number
  reqPerSecAvg: number
  p50: number
  p99: number
  total: number
  ok: number
  bad: number
  badSamples: string[]
  non2xx3xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  durationS: number
  /** Wall time of the load generators' run, from their start to their last result, ms. */
  wallMs: number
  /** The app's CPU (user + sys, its own process.cpuUsage) over the run, ms; null when not read. */
  cpuMs: number | null
  /** App CPU per response, ms: robust to other load on the machine. */
  cpuMsPerReq: number | null
  /** The app's CPU over the run as a share of one core (1 = the app was the bottleneck). */
  appCores: number | null
  /** The load generators' own CPU over the run, ms. */
  loadgenCpuMs: number
  /** The load generators' CPU over the run as a share of one core (all of them together). */
  loadgenCores: number | null
  /** The child's event-loop delay during the run, ms. */
  loop?: LoopDelay
}

/** A route's result on one side: pooled over the rounds, with each round's own window in `rounds`. */
export type RoundsResult = LoadResult & { rounds: LoadResult[] }

/** A figure taken round by round: the median of the rounds (mean of the middle two for an even count), its range, each round's value in order. */
export interface Spread {
  median: number
  min: number
  max: number
  rounds: number[]
}

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), rounds: [...values] }
}

/**
 * `x(round) ÷ y(round)` for every round, from the windows of that round; null when a round lacks a
 * figure (no CPU read) or its divisor is 0. `x` and `y` may read different routes or sides.
 */
export function paired(
  rounds: number,
  x: (round: number) => number | null | undefined,
  y: (round: number) => number | null | undefined,
): Spread | null {
  const ratios: number[] = []
  for (let i = 0; i < rounds; i++) {
    const a = x(i)
    const b = y(i)
    if (a === null || a === undefined || b === null || b === undefined || b === 0) return null
    ratios.push(a / b)
  }
  return ratios.length ? spread(ratios) : null
}

/**
 * The rounds of one route and side as one figure: counts and CPU summed, so `cpuMsPerReq` is the total
 * CPU ÷ the total requests and `okPerSec` the verified responses ÷ the measured seconds; p50/p99 are the
 * median of the rounds', the event-loop delay the worst round's.
 */
export function pool(rounds: readonly LoadResult[]): RoundsResult {
  const sum = (f: (r: LoadResult) => number) => rounds.reduce((n, r) => n + f(r), 0)
  const statusCodes: Record<string, number> = {}
  for (const r of rounds) for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count
  const durationS = sum((r) => r.durationS)
  const wallMs = sum((r) => r.wallMs)
  const total = sum((r) => r.total)
  const cpuMs = rounds.every((r) => r.cpuMs !== null) ? sum((r) => r.cpuMs ?? 0) : null
  const loadgenCpuMs = sum((r) => r.loadgenCpuMs)
  const loops = rounds.flatMap((r) => (r.loop ? [r.loop] : []))
  return {
    okPerSec: sum((r) => r.ok) / durationS,
    reqPerSecAvg: median(rounds.map((r) => r.reqPerSecAvg)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    total,
    ok: sum((r) => r.ok),
    bad: sum((r) => r.bad),
    badSamples: rounds.flatMap((r) => r.badSamples).slice(0, 5),
    non2xx3xx: sum((r) => r.non2xx3xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    durationS,
    wallMs,
    cpuMs,
    cpuMsPerReq: cpuMs !== null && total > 0 ? cpuMs / total : null,
    appCores: cpuMs !== null ? cpuMs / (durationS * 1000) : null,
    loadgenCpuMs,
    loadgenCores: wallMs > 0 ? loadgenCpuMs / wallMs : null,
    ...(loops.length
      ? {
          loop: {
            p50: Math.max(...loops.map((l) => l.p50)),
            p99: Math.max(...loops.map((l) => l.p99)),
            max: Math.max(...loops.map((l) => l.max)),
          },
        }
      : {}),
    rounds: [...rounds],
  }
}
