/**
 * Soak: mixed credentials sign-ins and session reads against one app for a while, its RSS sampled along
 * the way (the curve), from load generators in their own processes. `--soak=600` runs 10 minutes per app.
 */
import { type App, appUsage, runLoadgen } from "./children.js"
import type { CannonJob } from "./loadgen.js"

export interface SoakResult {
  seconds: number
  /** [seconds since start, RSS bytes, heap used bytes] every tenth of the run. */
  curve: Array<[number, number, number]>
  /** RSS at the end less RSS at the first sample, bytes. */
  growth: number
  requests: number
  bad: number
}

/** Runs sign-ins and session reads side by side for `seconds` (half the connections each). */
export async function soak(
  app: App,
  seconds: number,
  connections: number,
  loads: ReadonlyArray<Pick<CannonJob, "request" | "verify">>,
): Promise<SoakResult> {
  const per = Math.max(1, Math.round(connections / loads.length))
  const jobs = loads.map((load) =>
    runLoadgen<{ ok: number; bad: number }>({
      mode: "cannon",
      base: app.base,
      connections: per,
      durationS: seconds,
      ...load,
    } satisfies CannonJob),
  )
  const curve: Array<[number, number, number]> = []
  const started = performance.now()
  const every = (seconds * 1000) / 10
  const sample = async () => {
    const { rss, heapUsed } = await appUsage(app)
    curve.push([Math.round((performance.now() - started) / 1000), rss, heapUsed])
  }
  let done = false
  const all = Promise.all(jobs).finally(() => {
    done = true
  })
  while (!done) {
    await sample()
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, every))])
  }
  const results = await all
  await sample()
  const first = curve[0]?.[1] ?? 0
  const last = curve[curve.length - 1]?.[1] ?? 0
  return {
    seconds,
    curve,
    growth: last - first,
    requests: results.reduce((n, r) => n + r.ok + r.bad, 0),
    bad: results.reduce((n, r) => n + r.bad, 0),
  }
}
