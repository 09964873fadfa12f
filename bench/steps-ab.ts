/**
 * `tsx bench/steps-ab.ts <label>=<checkout> …`: the flow steps of `bench:steps` (the load generator's
 * steps job, every response checked) against several checkouts' bench apps (BENCH_STEPS=1,
 * NODE_ENV=production), in alternating rounds (the order reversed every other round) so that a shared
 * machine's load falls on every side alike. Each round runs BENCH_STEPS_FLOWS (default
 * `session,totp,webauthn`) once per side, BENCH_STEPS_COUNT requests per step (400) after 100 unmeasured;
 * a step's figure is the app's own CPU per request (`/__cpu`), the median over AB_ROUNDS rounds (6).
 *
 * Each checkout's app loads authchart from its `dist/` (run `npm run build` in each first), or with
 * BENCH_FROM=src from its sources through tsx.
 *
 * AB_WARM (0) runs every flow that many times on each app before the rounds: 0 measures young processes
 * as `bench:steps` does (V8 still compiling the steps' code), 4 or more older ones (a flow's steps still
 * get cheaper for some thousands of requests, so compare sides, not rounds). Per side,
 * `AB_ENV_<label>="K=V …"` adds environment variables. A checkout needs its own `node_modules` (a
 * symlink to this one's does). Example, main's tree (`git archive main | tar -x -C /tmp/base`) against
 * this one: `AB_WARM=4 tsx bench/steps-ab.ts base=/tmp/base new=.`
 */
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { type App, freePort, killAll, runLoadgen, startApp, stopApp } from "./children.js"
import type { PhaseResult, StepFlow, StepsJob } from "./loadgen.js"

const ROUNDS = Number(process.env.AB_ROUNDS ?? 6)
const WARM = Number(process.env.AB_WARM ?? 0)
const FLOWS = (process.env.BENCH_STEPS_FLOWS ?? "session,totp,webauthn").split(",") as StepFlow[]
const COUNT = Number(process.env.BENCH_STEPS_COUNT ?? 400)

interface Side {
  readonly label: string
  readonly app: App
  /** CPU µs per request of each step, one entry per round. */
  readonly steps: Map<string, number[]>
}

const words = (value: string | undefined): string[] => (value ?? "").split(" ").filter(Boolean)
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const job = (app: App, flows: StepFlow[], warmup: number): StepsJob => ({
  mode: "steps",
  base: app.base,
  flows,
  count: COUNT,
  concurrency: 32,
  warmup,
})

async function start(label: string, root: string): Promise<Side> {
  const env = Object.fromEntries(
    words(process.env[`AB_ENV_${label}`]).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  )
  const app = await startApp("authchart", await freePort(), { BENCH_STEPS: "1", ...env }, [], resolve(root))
  return { label, app, steps: new Map() }
}

async function round(side: Side): Promise<void> {
  const { phases } = await runLoadgen<{ phases: PhaseResult[] }>(job(side.app, FLOWS, 100))
  for (const phase of phases) {
    if (phase.bad > 0) throw new Error(`${side.label} ${phase.step}: ${phase.bad} wrong (${phase.samples.join("; ")})`)
    side.steps.set(phase.step, [...(side.steps.get(phase.step) ?? []), phase.appCpuUs / phase.requests])
  }
}

async function main(): Promise<void> {
  const specs = process.argv.slice(2).map((arg) => arg.split("=") as [string, string])
  if (specs.length === 0 || specs.some(([label, root]) => !label || !root)) throw new Error("usage: steps-ab.ts <label>=<checkout> …")
  const sides: Side[] = []
  for (const [label, root] of specs) sides.push(await start(label, root))
  try {
    const warming = Array.from({ length: WARM }, () => FLOWS).flat()
    if (warming.length > 0) for (const side of sides) await runLoadgen(job(side.app, warming, 0))
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await round(side)
      console.error(`round ${r + 1} of ${ROUNDS}, load average ${loadavg()[0]?.toFixed(2)}`)
    }
    for (const step of sides[0]?.steps.keys() ?? []) {
      const cells = sides.map((side) => {
        const rounds = side.steps.get(step) ?? []
        return `${side.label} ${median(rounds).toFixed(0)} [${rounds.map((us) => us.toFixed(0)).join(" ")}]`
      })
      console.log(`${step}: ${cells.join(" | ")}`)
    }
    console.log(
      `µs of app CPU per request, median [rounds]; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    )
  } finally {
    await Promise.all(sides.map((side) => stopApp(side.app)))
  }
}

try {
  await main()
} catch (err) {
  console.error(err)
  killAll()
  process.exitCode = 1
}
