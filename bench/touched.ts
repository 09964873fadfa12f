/**
 * What one request touches (MODE=calls of bench/step-loop.ts and bench/passkey-loop.ts): the distinct
 * functions run and the calls made, counted by V8's precise coverage, which is what runs cold in a
 * server (see bench/cold.ts).
 */
import type { Session } from "node:inspector/promises"

/** Per request of a step: distinct functions and calls, and the functions by file. */
export interface Touched {
  functions: number
  calls: number
  byFile: Map<string, number>
  /** `<calls> <function> <file>` of each function run (CALLS_LIST=1). */
  names: string[]
}

/**
 * A function that takes (and resets) the precise coverage of `session`, which must have started it with
 * call counts: what ran since the last take, leaving out the inspector's own calls and those of the bench
 * script whose URL contains `ownScript`.
 */
export function coverageTaker(session: Session, ownScript: string): () => Promise<Touched> {
  return async () => {
    const { result } = await session.post("Profiler.takePreciseCoverage")
    const touched: Touched = { functions: 0, calls: 0, byFile: new Map(), names: [] }
    for (const script of result) {
      const file = script.url.replace(/^.*\/(src|node_modules)\//, "$1/").replace(/^node:internal\/.*$/, "node:internal")
      for (const fn of script.functions) {
        const count = fn.ranges[0]?.count ?? 0
        // the inspector's own calls that take the coverage, and the bench's, are not the request's
        if (count === 0 || file.includes("inspector") || script.url.includes(ownScript)) continue
        touched.functions++
        touched.calls += count
        touched.byFile.set(file, (touched.byFile.get(file) ?? 0) + 1)
        if (process.env.CALLS_LIST) touched.names.push(`${count} ${fn.functionName || "(anonymous)"} ${file}`)
      }
    }
    return touched
  }
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN

/** Prints each step's median distinct functions and calls per request, and (CALLS_LIST, CALLS_BY_FILE) what they were. */
export function reportTouched(steps: Iterable<readonly [string, readonly Touched[]]>, width: number): void {
  for (const [step, all] of steps) {
    console.log(
      `calls ${step.padEnd(width)}: ${median(all.map((t) => t.functions))} distinct functions, ${median(all.map((t) => t.calls))} calls per request`,
    )
    if (process.env.CALLS_LIST) for (const name of all[all.length - 1]?.names ?? []) console.log(`  ${name}`)
    if (process.env.CALLS_BY_FILE) {
      const files = new Map<string, number[]>()
      for (const t of all) for (const [file, n] of t.byFile) files.set(file, [...(files.get(file) ?? []), n])
      const rows = [...files].map(([file, ns]) => [file, median(ns)] as const).sort((x, y) => y[1] - x[1])
      for (const [file, n] of rows) console.log(`  ${String(n).padStart(4)} ${file}`)
    }
  }
}
