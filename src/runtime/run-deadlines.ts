/**
 * The deadlines of the direct runner's runs (machine-run.ts) that wait on an effect: one timer for all of
 * them, set for the earliest deadline, instead of a timer set and cleared per run. A run that never waits
 * (every effect settled at once) costs no timer at all; one that waits is added here and removed when it
 * rests or ends. The timer keeps the process alive only while a run waits (it is unref'd otherwise), as
 * a run's own timer did.
 */

/** A run waiting on an effect: its deadline (`performance.now()` milliseconds) and what to do when it passes. */
export interface Deadlined {
  readonly deadline: number
  /** The deadline passed: the run fails (it is no longer watched). */
  expire(): void
}

const waiting = new Set<Deadlined>()
let timer: NodeJS.Timeout | undefined
/** When the timer fires (`performance.now()` ms); infinite when no timer is set. */
let due = Number.POSITIVE_INFINITY

/**
 * Watches `run` until {@link unwatchDeadline}: it expires once its deadline passed.
 * @example run.deadline = performance.now() + timeout; watchDeadline(run)
 */
export function watchDeadline(run: Deadlined): void {
  waiting.add(run)
  if (run.deadline < due) arm(run.deadline)
  else if (waiting.size === 1) timer?.ref()
}

/**
 * Stops watching `run` (it rested, ended or failed before its deadline).
 * @example unwatchDeadline(run)
 */
export function unwatchDeadline(run: Deadlined): void {
  if (waiting.delete(run) && waiting.size === 0) timer?.unref()
}

/** How many runs wait now (for tests). */
export function watchedRuns(): number {
  return waiting.size
}

function arm(at: number): void {
  if (timer) clearTimeout(timer)
  due = at
  timer = setTimeout(sweep, Math.max(1, Math.ceil(at - performance.now())))
}

/** The timer fired: every run past its deadline expires; the timer is set again for the earliest one left. */
function sweep(): void {
  timer = undefined
  due = Number.POSITIVE_INFINITY
  const now = performance.now()
  let next = Number.POSITIVE_INFINITY
  for (const run of waiting) {
    if (run.deadline <= now) {
      waiting.delete(run)
      run.expire()
    } else if (run.deadline < next) next = run.deadline
  }
  if (next !== Number.POSITIVE_INFINITY) arm(next)
}
