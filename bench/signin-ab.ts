/**
 * `tsx bench/signin-ab.ts <label>=<checkout> <label>=<checkout> …`: the credentials sign-in POST's server
 * CPU in several checkouts of authchart (their bench/app.ts, NODE_ENV=production), measured in alternating
 * rounds on the same machine, so that a shared machine's load falls on every side alike. Each round, each
 * side in turn (the order reversed every other round): AB_REQUESTS sign-in POSTs (10,000) at
 * AB_CONNECTIONS (50) from a load generator in its own process (bench/loadgen.ts, every response
 * checked), then 5,000 requests to the bare route (the floor of that process in that round). The figure
 * is the app's own CPU (`/__cpu`, user + system) per request; a side's summary is the median over
 * AB_ROUNDS rounds (6) of the POST and of the POST minus the floor.
 *
 * Each checkout's app loads authchart from its `dist/` (run `npm run build` in each first), or with
 * BENCH_FROM=src from its sources through tsx.
 *
 * `AB_ROUTE=session` measures the session read instead (GET /auth/session with the cookie of one sign-in
 * made first), to check that a change to the sign-in path leaves reads alone.
 *
 * Per side: `AB_ENV_<label>="K=V …"` adds environment variables (e.g. `BENCH_RATE_LIMIT=0`), and
 * `AB_FLAGS_<label>="--cpu-prof …"` node flags. A checkout needs its own `node_modules` (a symlink to
 * this one's does). Example, this checkout against main's and against itself without rate limits:
 * `AB_ENV_nolimits="BENCH_RATE_LIMIT=0" tsx bench/signin-ab.ts main=/work/main new=. nolimits=.`
 */
import { resolve } from "node:path"
import { type App, appUsage, freePort, killAll, runLoadgen, startApp, stopApp } from "./children.js"
import type { CannonJob } from "./loadgen.js"
import type { VerifySpec } from "./verify.js"

const ROUNDS = Number(process.env.AB_ROUNDS ?? 6)
const REQUESTS = Number(process.env.AB_REQUESTS ?? 10_000)
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 50)
const FLOOR_REQUESTS = 5_000
const WHAT = process.env.AB_ROUTE === "session" ? "session read" : "sign-in POST"

interface Side {
  readonly label: string
  readonly app: App
  readonly signIn: CannonJob["request"]
  readonly verify: VerifySpec
  readonly post: number[]
  readonly aboveFloor: number[]
}

const words = (value: string | undefined): string[] => (value ?? "").split(" ").filter(Boolean)

async function start(label: string, root: string): Promise<Side> {
  const env = Object.fromEntries(
    words(process.env[`AB_ENV_${label}`]).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  )
  const app = await startApp("authchart", await freePort(), env, words(process.env[`AB_FLAGS_${label}`]), resolve(root))
  const csrf = await fetch(`${app.base}/auth/csrf`)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookie = (csrf.headers.getSetCookie()[0] ?? "").split(";")[0] ?? ""
  const callbackUrl = `${app.base}/dashboard`
  const body = new URLSearchParams({ csrfToken, username: "bench", password: "bench", callbackUrl }).toString()
  const signIn = {
    method: "POST" as const,
    path: "/auth/callback/credentials",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body,
  }
  if (process.env.AB_ROUTE !== "session") return { label, app, signIn, verify: { kind: "signIn", callbackUrl }, post: [], aboveFloor: [] }
  const signedIn = await fetch(`${app.base}${signIn.path}`, { method: "POST", headers: signIn.headers, body, redirect: "manual" })
  const session = signedIn.headers
    .getSetCookie()
    .find((c) => c.includes("session-token"))
    ?.split(";")[0]
  if (!session) throw new Error(`${label}: the sign-in set no session cookie`)
  const read = { method: "GET" as const, path: "/auth/session", headers: { cookie: session } }
  return { label, app, signIn: read, verify: { kind: "session" }, post: [], aboveFloor: [] }
}

/** The app's CPU (µs) per request over `amount` requests; throws when a response was wrong. */
async function cpuPerRequest(app: App, request: CannonJob["request"], verify: VerifySpec, amount: number): Promise<number> {
  const before = await appUsage(app)
  const job: CannonJob = { mode: "cannon", base: app.base, request, verify, connections: CONNECTIONS, durationS: 0, amount }
  const result = await runLoadgen<{ ok: number; bad: number; errors: number; statusCodes: Record<string, number> }>(job)
  const after = await appUsage(app)
  const total = Object.values(result.statusCodes).reduce((a, b) => a + b, 0)
  if (result.bad || result.errors || result.ok !== total) throw new Error(`${request.path}: ${result.bad} wrong, ${result.errors} errors`)
  return (after.cpuUs - before.cpuUs) / total
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

async function main(): Promise<void> {
  const specs = process.argv.slice(2).map((arg) => arg.split("=") as [string, string])
  if (specs.length === 0 || specs.some(([label, root]) => !label || !root)) throw new Error("usage: signin-ab.ts <label>=<checkout> …")
  const sides: Side[] = []
  for (const [label, root] of specs) sides.push(await start(label, root))
  try {
    const floor: CannonJob["request"] = { method: "GET", path: "/__bare", headers: {} }
    for (const side of sides) await cpuPerRequest(side.app, side.signIn, side.verify, FLOOR_REQUESTS) // warm
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const post = await cpuPerRequest(side.app, side.signIn, side.verify, REQUESTS)
        const bare = await cpuPerRequest(side.app, floor, { kind: "bare" }, FLOOR_REQUESTS)
        side.post.push(post)
        side.aboveFloor.push(post - bare)
        console.log(
          `round ${round} ${side.label.padEnd(12)} ${WHAT} ${post.toFixed(1)} µs, floor ${bare.toFixed(1)} µs, above ${(post - bare).toFixed(1)} µs`,
        )
      }
    }
    for (const side of sides) {
      console.log(
        `${side.label.padEnd(12)} median of ${ROUNDS}: ${WHAT} ${median(side.post).toFixed(1)} µs, above the floor ${median(side.aboveFloor).toFixed(1)} µs`,
      )
    }
  } finally {
    for (const side of sides) await stopApp(side.app)
  }
}

main().catch((err) => {
  console.error(err)
  killAll()
  process.exit(1)
})
