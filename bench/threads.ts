/**
 * Per-thread CPU of a child process from /proc/<pid>/task/<tid>/schedstat (Linux): the main thread
 * (the event loop; its tid is the pid) apart from the others (V8's platform workers: concurrent
 * marking, compilation, the scavenger's helpers; libuv's thread pool). schedstat's first field is the
 * time on a CPU in ns (exact, unlike /proc/<pid>/stat's 10 ms ticks), its third the number of times the
 * thread was put on a CPU: for the main thread, about one per event-loop wake-up.
 */
import { readFileSync, readdirSync } from "node:fs"

/** One thread's counters at a moment. */
interface ThreadCounters {
  cpuNs: number
  runs: number
}

/** A process' threads at a moment, by tid. */
export type ThreadSample = Map<number, ThreadCounters>

/** The counters of every thread of `pid` now (an empty map when /proc is not there). */
export function sampleThreads(pid: number | undefined): ThreadSample {
  const out: ThreadSample = new Map()
  if (!pid) return out
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      const [cpuNs = "0", , runs = "0"] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").trim().split(" ")
      out.set(Number(tid), { cpuNs: Number(cpuNs), runs: Number(runs) })
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out
}

/** What a process' threads used between two samples: main thread apart from the rest. */
export interface ThreadUse {
  /** CPU ms of the main thread (the event loop and the JavaScript on it). */
  mainMs: number
  /** Times the main thread was put on a CPU (≈ event-loop wake-ups). */
  mainRuns: number
  /** CPU ms of all other threads (V8 workers, libuv's pool), threads that ended in between not counted. */
  otherMs: number
  /** How many other threads ran at all. */
  otherThreads: number
}

/** The difference between two samples of process `pid` (a thread new in `after` counts from zero). */
export function threadUse(pid: number | undefined, before: ThreadSample, after: ThreadSample): ThreadUse {
  const use: ThreadUse = { mainMs: 0, mainRuns: 0, otherMs: 0, otherThreads: 0 }
  for (const [tid, now] of after) {
    const then = before.get(tid) ?? { cpuNs: 0, runs: 0 }
    const ms = (now.cpuNs - then.cpuNs) / 1e6
    if (tid === pid) {
      use.mainMs = ms
      use.mainRuns = now.runs - then.runs
    } else if (ms > 0) {
      use.otherMs += ms
      use.otherThreads++
    }
  }
  return use
}
