/**
 * The four passkey steps (options GET and verify POST, register then authenticate) in a tight loop
 * through `handleRequest` (in process, no HTTP), with the steps bench's passkey config (NODE_ENV=production,
 * memory adapter, JWT sessions, `Passkey()`, rate limits on with maxima never reached). Each round takes
 * B fresh users: their B register options GETs are measured, the software authenticator's answers
 * (bench/webauthn-authenticator.ts) are made outside the measured part, then the B register POSTs are
 * measured; then the same for authenticate. `node --import tsx bench/passkey-loop.ts`, with MODE:
 * - `cpu` (default): CPU µs per request (`process.cpuUsage`), ROUNDS rounds of B (7 × 1,000), best and median.
 * - `alloc`: bytes allocated per request; run with `--expose-gc --min-semi-space-size=256
 *   --max-semi-space-size=256` so no scavenge runs while it counts.
 * - `heap`: a sampling heap profile of the measured requests (garbage included), one per step, written to
 *   OUT_DIR as passkey-<step>.heapprofile (steps `options-register`, `register`, `options-authenticate`,
 *   `authenticate`).
 * - `prof`: a CPU profile of the measured requests only (the inspector's profiler, started and stopped
 *   around them), one per step, written to OUT_DIR (default /tmp) as passkey-<step>.cpuprofile.
 * - `calls`: the distinct functions run and the calls made by one request of each step (V8's precise
 *   coverage, median of the last round's first 25 requests), with the files they are in
 *   (`CALLS_BY_FILE=1`) or each function with its calls in the last counted request (`CALLS_LIST=1`).
 * With COLD=1 every measured request runs after a cache eviction (bench/cold.ts) and the figure is its
 * wall time: close to what the step costs over HTTP beyond the bare route, unlike the hot loop.
 * Compare two checkouts by running it in each, alternating; report ratios, not absolute figures.
 */
import { handleRequest } from "../src/runtime/auth.js"
import { resolvedFor } from "../src/runtime/config.js"
import type { IncomingRequest, ResponseInternal } from "../src/runtime/context.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Passkey from "../src/providers/passkey.js"
import type { AuthConfig } from "../src/types.js"
import { BENCH_SECRET, PASSKEY_PROVIDER_ID } from "./shared.js"
import { COLD, request, takeColdUs } from "./cold.js"
import { type Touched, coverageTaker, reportTouched } from "./touched.js"
import { cookieJar, loopRequest } from "./loop-request.js"
import { SoftAuthenticator } from "./webauthn-authenticator.js"

process.env.NODE_ENV = "production"
const base = "http://127.0.0.1:3000"
const authConfig: AuthConfig = {
  secret: BENCH_SECRET,
  trustHost: true,
  adapter: MemoryAdapter(),
  session: { strategy: "jwt" },
  experimental: { enableWebAuthn: true },
  rateLimit: process.env.RL === "0" ? false : { rules: { client: { max: 1e9 }, webauthnClient: { max: 1e9 } } },
  providers: [Passkey({ id: PASSKEY_PROVIDER_ID })],
}
const config = resolvedFor(authConfig)
const authenticator = new SoftAuthenticator(base)

type Action = "register" | "authenticate"
/** A measured step: an action's verify POSTs, or its options GETs. */
type Step = Action | `options-${Action}`
const STEPS: readonly Step[] = ["options-register", "register", "options-authenticate", "authenticate"]
interface Prepared {
  request: IncomingRequest
}

let users = 0
/** How a measured request is sent: `request` (timed cold with COLD=1), or counted (MODE=calls). */
let one: <T>(run: () => Promise<T>) => Promise<T> = request
/** B users' options GETs for `action` (the measured part), then their answers as verify POSTs (not measured). */
async function prepare(action: Action, emails: string[], measure: (step: Step, run: () => Promise<void>) => Promise<void>) {
  const got: ResponseInternal[] = []
  await measure(`options-${action}`, async () => {
    for (const email of emails) {
      const query = new URLSearchParams({ action, email })
      const url = new URL(`${base}/auth/webauthn-options/${PASSKEY_PROVIDER_ID}?${query}`)
      got.push((await one(() => handleRequest(loopRequest("GET", url, ""), config))).response)
    }
  })
  return got.map((response, i): Prepared => {
    const answer = response.body as { action: string; options: { challenge: string; rp: { id?: string }; rpId?: string } }
    if (answer?.action !== action) throw new Error(`options: ${JSON.stringify(response)}`)
    const email = emails[i] as string
    const data = action === "register" ? authenticator.register(email, answer.options) : authenticator.authenticate(email, answer.options)
    const body = { action, data: JSON.stringify(data) }
    return { request: loopRequest("POST", new URL(`${base}/auth/callback/${PASSKEY_PROVIDER_ID}`), cookieJar(response), body) }
  })
}

async function post(p: Prepared): Promise<void> {
  const h = await one(() => handleRequest(p.request, config))
  if (!h.response.cookies?.some((c) => c.name.includes("session-token"))) throw new Error(`no session: ${JSON.stringify(h.response)}`)
}

/** One round: B registrations then B sign-ins; CPU µs per request of each step. */
async function round(b: number, measure: (step: Step, run: () => Promise<void>) => Promise<void>): Promise<void> {
  const emails = Array.from({ length: b }, () => `p${users++}@bench.test`)
  for (const action of ["register", "authenticate"] as const) {
    const prepared = await prepare(action, emails, measure)
    await measure(action, async () => {
      for (const p of prepared) await post(p)
    })
  }
}

/** MODE=prof or heap: the last round's profile of each step's requests, written to OUT_DIR. */
async function profile(mode: "prof" | "heap", b: number, rounds: number): Promise<void> {
  const { Session } = await import("node:inspector/promises")
  const { writeFileSync } = await import("node:fs")
  const session = new Session()
  session.connect()
  const kind = mode === "prof" ? "Profiler" : "HeapProfiler"
  await session.post(`${kind}.enable`)
  if (mode === "prof") await session.post("Profiler.setSamplingInterval", { interval: 100 })
  const last: Partial<Record<Step, unknown>> = {}
  for (let r = 0; r < rounds; r++) {
    await round(b, async (step, run) => {
      if (mode === "prof") await session.post("Profiler.start")
      else {
        const sampling = { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }
        await session.post("HeapProfiler.startSampling", sampling)
      }
      await run()
      last[step] =
        mode === "prof" ? (await session.post("Profiler.stop")).profile : (await session.post("HeapProfiler.stopSampling")).profile
    })
  }
  const ext = mode === "prof" ? "cpuprofile" : "heapprofile"
  for (const [step, data] of Object.entries(last)) {
    writeFileSync(`${process.env.OUT_DIR ?? "/tmp"}/passkey-${step}.${ext}`, JSON.stringify(data))
  }
}

/** MODE=calls: the last round's first 25 requests of each step, counted by V8's precise coverage. */
async function calls(b: number, rounds: number): Promise<void> {
  const { Session } = await import("node:inspector/promises")
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  const take = coverageTaker(session, "passkey-loop")
  const touchedBy = new Map<Step, Touched[]>()
  for (let r = 0; r < rounds; r++) {
    const last = r === rounds - 1
    await round(b, async (step, run) => {
      if (!last) return run()
      const into: Touched[] = []
      touchedBy.set(step, into)
      one = async (send) => {
        if (into.length >= 25) return send()
        await take()
        const answer = await send()
        into.push(await take())
        return answer
      }
      await run()
      one = request
    })
  }
  reportTouched(
    STEPS.map((step) => [step, touchedBy.get(step) ?? []] as const),
    20,
  )
}

async function main() {
  const mode = process.env.MODE ?? "cpu"
  const b = Number(process.env.B ?? 1000)
  const rounds = Number(process.env.ROUNDS ?? 7)
  await round(Math.min(b, 500), async (_, run) => run()) // warm-up
  if (mode === "prof" || mode === "heap") {
    await profile(mode, b, rounds)
    return
  }
  if (mode === "calls") {
    await calls(b, rounds)
    return
  }
  const results: Record<Step, number[]> = { "options-register": [], register: [], "options-authenticate": [], authenticate: [] }
  const gc = (globalThis as { gc?: () => void }).gc
  if (mode === "alloc" && !gc) throw new Error("MODE=alloc needs --expose-gc")
  for (let r = 0; r < rounds; r++) {
    await round(b, async (step, run) => {
      if (mode === "alloc") {
        gc?.()
        const before = process.memoryUsage().heapUsed
        await run()
        results[step].push((process.memoryUsage().heapUsed - before) / b)
        return
      }
      const before = process.cpuUsage()
      takeColdUs()
      await run()
      const used = process.cpuUsage(before)
      results[step].push((COLD ? takeColdUs() : used.user + used.system) / b)
    })
  }
  const unit = mode === "alloc" ? "bytes" : COLD ? "cold µs" : "cpu µs"
  for (const step of STEPS) {
    const sorted = [...results[step]].sort((x, y) => x - y)
    const fmt = (x: number | undefined) => (x ?? Number.NaN).toFixed(mode === "alloc" ? 0 : 1)
    console.log(
      `${unit}/request ${step}: best ${fmt(sorted[0])} median ${fmt(sorted[Math.floor(sorted.length / 2)])} (${sorted.map(fmt).join(" ")})`,
    )
  }
}
main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
