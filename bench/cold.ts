/**
 * Cold-cache timing for the in-process machine loop (bench/machine.ts with COLD=1).
 *
 * Over HTTP a flow step costs 3-5× what the same step costs in a tight loop, while a session read costs
 * about what the loop says. The difference is the CPU caches: between two steps the HTTP server, Express
 * and the other requests in flight run, so a step's code, its data and the crypto library's tables are
 * no longer in L1/L2 when it runs. A tight loop measures the step hot, which rewards the wrong changes
 * (more code for fewer instructions). With COLD=1 the loops run `evict()` (a pass over a buffer of
 * COLD_KB kilobytes and over COLD_FNS generated functions) before each request and time only the
 * request, so the figure moves with what a change does to a step's footprint: distinct functions run,
 * objects touched, native calls made.

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

// let the generated functions reach optimised code before anything is measured
for (let i = 0; i < 200; i++) evict()
