/**
 * Cold-cache timing for the in-process loops (bench/step-loop.ts, bench/passkey-loop.ts with COLD=1).
 *
 * Over HTTP a flow step costs 3-5× what the same step costs in a tight loop, while a session read costs
 * about what the loop says. The difference is the CPU caches: between two steps the HTTP server, Express
 * and the other requests in flight run, so a step's code, its data and the crypto library's tables are
 * no longer in L1/L2 when it runs. A tight loop measures the step hot, which rewards the wrong changes
 * (more code for fewer instructions). With COLD=1 the loops run `evict()` (a pass over a buffer of
 * COLD_KB kilobytes and over COLD_FNS generated functions) before each request and time only the
 * request, so the figure moves with what a change does to a step's footprint: distinct functions run,
 * objects touched, native calls made.
 *
 * Calibration (2026-11-27, this 2-core VM, 2 MB L2 per core; µs per request, the loop with COLD=1 against
 * the step's cost in `npm run bench` minus the bare Express route): TOTP password 204 vs 257, TOTP code
 * 241 vs 244, email send 143 vs 141, email link 201 vs 156, passkey register options 216 vs 205, register
 * 350 vs 396, authenticate options 213 vs 205, authenticate 414 vs 488. Hot, the same loops read 50-175.
 */
const KB = Number(process.env.COLD_KB ?? 3072)
const FNS = Number(process.env.COLD_FNS ?? 1500)

export const COLD = process.env.COLD === "1"

const lines = new Float64Array((KB * 1024) / 8)
// distinct small functions, each its own code object and feedback vector
const fns = Array.from(
  { length: FNS },
  (_, i) =>
    new Function(
      "x",
      `let s = ${i}; for (let j = 0; j < 3; j++) { s = (s * 31 + x + j) | 0; if (s % ${i + 7} === 0) s += ${i} } return s`,
    ) as (x: number) => number,
)
let sink = 0

/** Pushes the caches' contents out: writes one value per cache line of the buffer and runs every function. */
export function evict(): void {
  for (let i = 0; i < lines.length; i += 8) {
    const v = (lines[i] ?? 0) + 1
    lines[i] = v
    sink += v
  }
  for (const fn of fns) sink = fn(sink & 1023)
}

let spentUs = 0

/**
 * COLD_CLOCK=cpu times each request by the process' CPU time (`process.cpuUsage`, user + system, all its
 * threads) instead of the wall clock: time the process was not running (another process on the core)
 * is not counted, which steadies the figure on a busy machine.
 */
const CPU_CLOCK = process.env.COLD_CLOCK === "cpu"

function nowUs(): number {
  if (!CPU_CLOCK) return performance.now() * 1000
  const { user, system } = process.cpuUsage()
  return user + system
}

/**
 * One request of a measured batch: with COLD=1, run after an eviction and its time added to the
 * batch's total (`takeColdUs`); otherwise just run.
 */
export function request<T>(one: () => Promise<T>): Promise<T> {
  if (!COLD) return one()
  evict()
  const start = nowUs()
  return one().then((value) => {
    spentUs += nowUs() - start
    return value
  })
}

/** The µs the COLD requests took since the last call (the evictions not counted). */
export function takeColdUs(): number {
  const us = spentUs
  spentUs = 0
  return us
}

/** The process' CPU time in µs (user + system, all its threads). */
export const cpuUs = (): number => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/**
 * The builds named on the command line (`<label>=<dist>`, at least two), each made ready by `make`: for
 * the A/B benches that run two builds in one process (bench/cold-ab.ts, bench/step-cold-ab.ts).
 */
export async function buildsFromArgs<T>(usage: string, make: (dist: string) => Promise<T>): Promise<{ label: string; build: T }[]> {
  const builds = await Promise.all(
    process.argv.slice(2).map(async (arg) => {
      const [label, dist] = arg.split("=") as [string, string]
      return { label, build: await make(dist) }
    }),
  )
  if (builds.length < 2) throw new Error(`usage: ${usage}`)
  return builds
}

/**
 * Prints each build's median, quartiles and mean of `times` (µs) under `title`, then the second
 * build's median over the first's.
 */
export function reportMedians(title: string, sides: readonly { label: string; times: readonly number[] }[]): void {
  const quantile = (sorted: readonly number[], q: number) => sorted[Math.floor((sorted.length - 1) * q)] ?? Number.NaN
  const medians = sides.map(({ label, times }) => {
    const sorted = [...times].sort((a, b) => a - b)
    const mean = sorted.reduce((sum, t) => sum + t, 0) / sorted.length
    const median = quantile(sorted, 0.5)
    console.log(
      `${label.padEnd(10)} ${title}, CPU µs: median ${median} (quartiles ${quantile(sorted, 0.25)}–${quantile(sorted, 0.75)}), mean ${mean.toFixed(1)}`,
    )
    return median
  })
  console.log(`${title}: median ${sides[1]?.label} / ${sides[0]?.label}: ${((medians[1] ?? 0) / (medians[0] ?? 1)).toFixed(3)}`)
}

// let the generated functions reach optimised code before anything is measured
for (let i = 0; i < 200; i++) evict()
