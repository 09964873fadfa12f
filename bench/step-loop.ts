/**
 * The TOTP and email steps in a tight loop through `handleRequest` (in process, no HTTP), with the steps
 * bench's config for them (NODE_ENV=production, memory adapter, JWT sessions, rate limits on with maxima
 * never reached). Each round takes B fresh users and measures each step of theirs in turn: the password
 * POST that rests on the TOTP step, then the TOTP code POST; the email link's request, then its visit.
 * `node --import tsx bench/step-loop.ts`, with MODE:
 * - `cpu` (default): CPU µs per request of each step (`process.cpuUsage`), ROUNDS rounds of B (7 × 1,000).
 * - `alloc`: bytes allocated per request of each step; run with `--expose-gc --min-semi-space-size=256
 *   --max-semi-space-size=256` so no scavenge runs while it counts.
 * - `heap`: a sampling heap profile of each step's requests in the last round (garbage included), written
 *   to OUT_DIR as step-<step>.heapprofile.
 * - `prof`: a CPU profile of each step's requests in the last round (the inspector's profiler at 100 µs),
 *   written to OUT_DIR (default /tmp) as step-<step>.cpuprofile.
 * - `promises`: promises made per request of each step (V8's promise hooks), over the last round.
 * - `calls`: the distinct functions run and the calls made by one request of each step (V8's precise
 *   coverage, median of the last round's first 25 requests, sent one at a time), with the files they
 *   are in (`CALLS_BY_FILE=1`) or each function with its calls in the last request counted (`CALLS_LIST=1`):
 *   what a request touches, which is what runs cold in the server.
 * With COLD=1 every measured request runs after a cache eviction (bench/cold.ts) and the figure is its
 * wall time: close to what the step costs over HTTP beyond the bare route, unlike the hot loop.
 * Compare two checkouts by running it in each, alternating; report ratios, not absolute figures.
 */
import { MemoryAdapter } from "../src/adapters/memory.js"
import { credentialsFlow, extendFlow } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { handleRequest } from "../src/runtime/auth.js"
import { resolvedFor } from "../src/runtime/config.js"
import type { IncomingRequest, ResponseInternal } from "../src/runtime/context.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import type { AuthConfig } from "../src/types.js"
import { COLD, request, takeColdUs } from "./cold.js"
import { type Touched, coverageTaker, reportTouched } from "./touched.js"
import { cookieJar, loopRequest } from "./loop-request.js"
import { BENCH_SECRET, EMAIL_PROVIDER_ID, TOTP_PROVIDER_ID } from "./shared.js"
import { type StepsLib, stepsProviders } from "./steps-providers.js"
import { benchTotpSecret } from "./totp-secret.js"

process.env.NODE_ENV = "production"
const base = "http://127.0.0.1:3000"
const callbackUrl = `${base}/dashboard`
const unlimited = { max: 1e9 }
const mail = new Map<string, string>()
const { flows, providers } = stepsProviders({ Credentials, credentialsFlow, extendFlow, totpStep: totpStep as StepsLib["totpStep"] }, mail)
const authConfig: AuthConfig = {
  secret: BENCH_SECRET,
  trustHost: true,
  adapter: MemoryAdapter(),
  session: { strategy: "jwt" },
  flows: flows as AuthConfig["flows"],
  rateLimit:
    process.env.RL === "0"
      ? false
      : {
          rules: {
            client: unlimited,
            passwordAccount: unlimited,
            passwordClient: unlimited,
            passwordAccounts: unlimited,
            emailClient: unlimited,
            emailAddress: unlimited,
          },
        },
  providers: providers as AuthConfig["providers"],
}
const config = resolvedFor(authConfig)

type Step = "totp-password" | "totp-code" | "email-send" | "email-verify"
const FLOWS: Record<string, [Step, Step]> = { totp: ["totp-password", "totp-code"], email: ["email-send", "email-verify"] }

let csrf: { token: string; cookie: string }
let users = 0

/** One step's B requests, made (not measured) before `run` sends them, and a check of each answer. */
interface Batch {
  requests: IncomingRequest[]
  check(response: ResponseInternal, i: number): void
}

function expect(ok: boolean, what: string, response: ResponseInternal): void {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(response).slice(0, 300)}`)
}

const signedIn = (r: ResponseInternal) => r.redirect === callbackUrl && !!r.cookies?.some((c) => c.name.includes("session-token"))

/** The first step's batch for `flow`; its answers give the second's (through `then`). */
function firstBatch(flow: string, names: string[], then: ResponseInternal[]): Batch {
  if (flow === "totp") {
    const requests = names.map((name) =>
      loopRequest("POST", new URL(`${base}/auth/callback/${TOTP_PROVIDER_ID}`), csrf.cookie, {
        csrfToken: csrf.token,
        username: name,
        password: "bench",
        callbackUrl,
      }),
    )
    return { requests, check: (r, i) => (expect(r.status === 200 && String(r.body).includes('name="code"'), "password", r), (then[i] = r)) }
  }
  const requests = names.map((name) =>
    loopRequest("POST", new URL(`${base}/auth/signin/${EMAIL_PROVIDER_ID}`), csrf.cookie, {
      csrfToken: csrf.token,
      email: `${name}@bench.test`,
      callbackUrl,
    }),
  )
  return { requests, check: (r, i) => (expect(!!r.redirect?.includes("/verify-request"), "send", r), (then[i] = r)) }
}

async function secondBatch(flow: string, names: string[], first: ResponseInternal[]): Promise<Batch> {
  if (flow === "totp") {
    const requests: IncomingRequest[] = []
    for (const [i, name] of names.entries()) {
      const code = totpCode(await benchTotpSecret(name))
      requests.push(
        loopRequest("POST", new URL(`${base}/auth/callback/${TOTP_PROVIDER_ID}`), cookieJar(first[i] as ResponseInternal, csrf.cookie), {
          csrfToken: csrf.token,
          step: "totp",
          code,
        }),
      )
    }
    return { requests, check: (r) => expect(signedIn(r), "code", r) }
  }
  const requests = names.map((name) => loopRequest("GET", new URL(mail.get(`${name}@bench.test`) as string), ""))
  return { requests, check: (r) => expect(signedIn(r), "verify", r) }
}

const median = (values: readonly number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN

/** CONCURRENCY requests in flight at once (default 1: one after the other). */
const CONCURRENCY = Math.max(1, Number(process.env.CONCURRENCY ?? 1))

async function sendCounting(batch: Batch, take: () => Promise<Touched>, into: Touched[]): Promise<void> {
  for (let i = 0; i < batch.requests.length; i++) {
    if (i < 25) await take()
    const answer = await handleRequest(batch.requests[i] as IncomingRequest, config)
    if (i < 25) into.push(await take())
    batch.check(answer.response, i)
  }
}

/** With COLD=1 and one request in flight: each request's own µs, for the median of a batch. */
const perRequest: number[] = []

async function send(batch: Batch): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < batch.requests.length) {
      const i = next++
      const answer = await request(() => handleRequest(batch.requests[i] as IncomingRequest, config))
      if (COLD && CONCURRENCY === 1) perRequest.push(takeColdUs())
      batch.check(answer.response, i)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

/** One round of `flow` for B fresh users: `measure` runs each step's batch. */
/** Sends a step's batch: `send`, or another sender (MODE=calls). */
type Run = (sender?: (batch: Batch) => Promise<void>) => Promise<void>

async function round(flow: string, b: number, measure: (step: Step, run: Run) => Promise<void>): Promise<void> {
  const names = Array.from({ length: b }, () => `totp-u${users++}`)
  const [one, two] = FLOWS[flow] as [Step, Step]
  const first: ResponseInternal[] = []
  const batch = firstBatch(flow, names, first)
  await measure(one, (sender = send) => sender(batch))
  const next = await secondBatch(flow, names, first)
  await measure(two, (sender = send) => sender(next))
}

async function main() {
  const mode = process.env.MODE ?? "cpu"
  const b = Number(process.env.B ?? 1000)
  const rounds = Number(process.env.ROUNDS ?? 7)
  const flows = (process.env.FLOWS ?? "totp,email").split(",")
  const got = await handleRequest(loopRequest("GET", new URL(`${base}/auth/csrf`), ""), config)
  csrf = { token: (got.response.body as { csrfToken: string }).csrfToken, cookie: cookieJar(got.response) }
  for (const flow of flows) await round(flow, Math.min(b, 500), (_, run) => run()) // warm-up
  const results = new Map<Step, number[]>()
  const medians = new Map<Step, number[]>()
  const { Session } = await import("node:inspector/promises")
  const session = mode === "prof" || mode === "heap" || mode === "calls" ? new Session() : undefined
  const kind = mode === "heap" ? "HeapProfiler" : "Profiler"
  if (session) {
    session.connect()
    await session.post(`${kind}.enable`)
    if (mode === "prof") await session.post("Profiler.setSamplingInterval", { interval: 100 })
    if (mode === "calls") await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  }
  const take = coverageTaker(session as InstanceType<typeof Session>, "step-loop")
  const touchedBy = new Map<Step, Touched[]>()
  const { promiseHooks } = await import("node:v8")
  let promisesMade = 0
  const promisesBy = new Map<Step, number>()
  const gc = (globalThis as { gc?: () => void }).gc
  if (mode === "alloc" && !gc) throw new Error("MODE=alloc needs --expose-gc")
  for (let r = 0; r < rounds; r++) {
    for (const flow of flows) {
      await round(flow, b, async (step, run) => {
        const last = r === rounds - 1
        if (last && session && mode === "prof") await session.post("Profiler.start")
        const sampling = { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }
        if (last && session && mode === "heap") await session.post("HeapProfiler.startSampling", sampling)
        if (last && mode === "calls") {
          const into: Touched[] = []
          touchedBy.set(step, into)
          await run((batch) => sendCounting(batch, take, into))
          return
        }
        const counting = last && mode === "promises"
        const stopCounting = counting ? promiseHooks.onInit(() => promisesMade++) : undefined
        const promisesBefore = promisesMade
        gc?.()
        const heapBefore = process.memoryUsage().heapUsed
        const before = process.cpuUsage()
        takeColdUs()
        perRequest.length = 0
        await run()
        const used = process.cpuUsage(before)
        const coldUs = COLD && CONCURRENCY === 1 ? perRequest.reduce((sum, us) => sum + us, 0) : takeColdUs()
        if (COLD && CONCURRENCY === 1) medians.set(step, [...(medians.get(step) ?? []), median(perRequest)])
        stopCounting?.()
        if (counting) promisesBy.set(step, (promisesMade - promisesBefore) / b)
        const allocated = process.memoryUsage().heapUsed - heapBefore
        if (last && session && (mode === "prof" || mode === "heap")) {
          const { writeFileSync } = await import("node:fs")
          const profile =
            mode === "prof" ? (await session.post("Profiler.stop")).profile : (await session.post("HeapProfiler.stopSampling")).profile
          writeFileSync(
            `${process.env.OUT_DIR ?? "/tmp"}/step-${step}.${mode === "prof" ? "cpuprofile" : "heapprofile"}`,
            JSON.stringify(profile),
          )
        }
        results.set(step, [...(results.get(step) ?? []), (mode === "alloc" ? allocated : COLD ? coldUs : used.user + used.system) / b])
      })
    }
  }
  for (const [step, made] of promisesBy) console.log(`promises ${step.padEnd(14)}: ${made.toFixed(1)} per request`)
  reportTouched(touchedBy, 14)
  if (mode === "calls" || mode === "promises") return
  for (const [step, values] of results) {
    const sorted = [...values].sort((x, y) => x - y)
    const fmt = (x: number | undefined) => (x ?? Number.NaN).toFixed(mode === "alloc" ? 0 : 1)
    console.log(
      `${mode === "alloc" ? "bytes" : COLD ? "cold µs" : "cpu µs"} ${step.padEnd(14)}: best ${fmt(sorted[0])} median ${fmt(sorted[Math.floor(sorted.length / 2)])} (${sorted.map(fmt).join(" ")})`,
    )
  }
  // a request's own time, the median of each round's: a request the OS preempted (other processes on a
  // shared machine) moves a round's mean, not its median
  for (const [step, values] of medians) {
    console.log(
      `cold µs ${step.padEnd(14)}: per-request median ${median(values).toFixed(1)} (${values.map((v) => v.toFixed(1)).join(" ")})`,
    )
  }
}
main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
