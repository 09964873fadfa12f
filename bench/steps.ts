/**
 * `npm run bench:steps`: authchart's server CPU per flow step, in one run on one app.
 *
 * The app (bench/app.ts with BENCH_STEPS=1: memory adapter, email provider, a credentials provider with
 * a TOTP step, the OIDC provider) runs alone; the load generator (bench/loadgen.ts) is its own process
 * and runs the local OpenID provider, so the provider's time never counts as the app's. Every step is a
 * phase of BENCH_STEPS_COUNT requests at BENCH_STEPS_CONCURRENCY; the app's CPU (its own
 * process.cpuUsage) before and after each phase gives CPU per request. The flows run BENCH_STEPS_ROUNDS
 * times one after the other (round 1: every flow, round 2: every flow, ...), and each step's figure is
 * the median of its rounds, so a burst of load on a shared machine moves one round, not the figure.
 * Every step of the app is run between two phases of session reads (same count and concurrency), and is
 * held to them: its budget is 2× that paired read plus the crypto it has to do (JWE seals and opens, an
 * ES256 signature check; measured here in process), checked round by round (the median of step ÷
 * budget). A read taken once per round drifted with the process' age and the load beside it (from 394
 * to 104 µs across three rounds of one run), so a step was compared with a read of other conditions.
 * The session-read row stays, and `vsSessionRow` gives the old comparison. Two floor rows (bench/essential.ts)
 * send the TOTP code and the passkey sign-in requests to routes doing only what those steps cannot skip,
 * right before the real step: what the step's crypto and the integration cost here, held to the same budget. Passkeys are registered and used by a software authenticator in the load generator
 * (bench/webauthn-authenticator.ts). BENCH_STEPS_FLOWS picks flows, BENCH_STEPS_NODE_FLAGS adds node flags to the
 * app (a CPU profile: `--cpu-prof --cpu-prof-dir=<dir>`). `--json` prints JSON.
 */
import { generateKeyPairSync, randomBytes, sign, verify } from "node:crypto"
import { loadavg } from "node:os"
import { decryptJwt, encryptJwt } from "../src/runtime/crypto/sealed.js"
import { type App, freePort, runLoadgen, startApp, stopApp } from "./children.js"
import type { LoadgenCpu, PhaseResult, StepFlow, StepsJob } from "./loadgen.js"
import { BENCH_SECRET, ESSENTIAL_PASSKEY, ESSENTIAL_TOTP, IDP_ENV, SESSION_COOKIE } from "./shared.js"

const COUNT = Number(process.env.BENCH_STEPS_COUNT ?? 400)
const CONCURRENCY = Number(process.env.BENCH_STEPS_CONCURRENCY ?? 32)
const WARMUP = Number(process.env.BENCH_STEPS_WARMUP ?? 200)
/** Unmeasured requests of each flow before its first measured round (the JIT settles; see `firstWarmup`). */
const FIRST_WARMUP = Number(process.env.BENCH_STEPS_FIRST_WARMUP ?? 3000)
const ROUNDS = Math.max(1, Number(process.env.BENCH_STEPS_ROUNDS ?? 3))
const ALL_FLOWS: StepFlow[] = ["bare", "session", "csrf", "integration", "credentials", "oidc", "email", "totp", "webauthn"]
/** BENCH_STEPS_FLOWS=session,oidc runs only those flows (in that order), e.g. for a profile of one flow. */
const FLOWS = process.env.BENCH_STEPS_FLOWS ? (process.env.BENCH_STEPS_FLOWS.split(",") as StepFlow[]) : ALL_FLOWS
const IDP_CLIENT = { clientId: "bench-steps", clientSecret: "bench-steps-secret-0123456789abcdef" }
/** BENCH_STEPS_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof": node flags for the app child (node refuses --cpu-prof in NODE_OPTIONS). */
const APP_FLAGS = process.env.BENCH_STEPS_NODE_FLAGS?.split(" ").filter(Boolean) ?? []

/** The crypto a step has to do besides the model and the plumbing: JWE seals and opens (session or flow state), ES256 checks. */
const CRYPTO: Record<string, { seals: number; opens: number; es256?: number; note: string }> = {
  "POST /auth/callback/credentials": { seals: 1, opens: 0, note: "session JWE" },
  "POST /auth/signin/<oidc> (start)": { seals: 1, opens: 0, note: "flow state JWE" },
  "GET /auth/callback/<oidc> (code exchange)": {
    seals: 1,
    opens: 1,
    note: "flow state open, session JWE (the ID token comes from the token endpoint: no signature check)",
  },
  "POST /auth/signin/email (send link)": { seals: 0, opens: 0, note: "token hash" },
  "GET /auth/callback/email (verify link)": { seals: 1, opens: 0, note: "session JWE, token hash" },
  "POST /auth/callback/totp (password, rests on the TOTP step)": { seals: 1, opens: 0, note: "flow state JWE" },
  "POST /auth/callback/totp (TOTP code)": { seals: 1, opens: 1, note: "flow state open, session JWE, HMAC-SHA1" },
  [ESSENTIAL_TOTP]: { seals: 1, opens: 1, note: "as the TOTP code step" },
  [ESSENTIAL_PASSKEY]: { seals: 1, opens: 1, es256: 1, note: "as the passkey sign-in POST" },
  "GET /auth/webauthn-options/passkey (register)": { seals: 1, opens: 0, note: "flow state JWE" },
  "POST /auth/callback/passkey (register)": { seals: 1, opens: 1, note: "flow state open, session JWE, CBOR (not counted)" },
  "GET /auth/webauthn-options/passkey (authenticate)": { seals: 1, opens: 0, note: "flow state JWE" },
  "POST /auth/callback/passkey (authenticate)": { seals: 1, opens: 1, es256: 1, note: "flow state open, session JWE, ES256 check" },
}

export interface StepRow {
  step: string
  /** Requests measured, over every round. */
  requests: number
  bad: number
  /** The median of the rounds' CPU per request, µs. */
  appCpuUsPerRequest: number
  /** Each round's CPU per request, µs, in the order they ran. */
  roundsUs: number[]
  /** The median of the rounds' paired session reads (read right before and after the step), µs; null when unpaired. */
  pairedReadUs: number | null
  /** The median of the rounds' step ÷ paired read. */
  vsSessionRead: number | null
  /** The step's median ÷ the session-read row's median (how the bench compared before reads were paired). */
  vsSessionRow: number | null
  /** 2 × the paired read's median + the step's own crypto, µs; null for steps without a budget. */
  budgetUs: number | null
  /** The median of the rounds' step ÷ (2 × that round's paired read + crypto) is at most 1. */
  withinBudget: boolean | null
  crypto: string
  samples: string[]
  /** Each round's phase on the monotonic clock, µs (to cut a CPU profile of the app by phase). */
  monoUs: [number, number][]
}

export interface StepsReport {
  rows: StepRow[]
  sessionReadUs: number
  sealUs: number
  openUs: number
  es256Us: number
  loadgen: LoadgenCpu
  settings: { count: number; concurrency: number; warmup: number; firstWarmup: number; rounds: number }
  loadavg: number[]
}

/** CPU µs of `op`, best of 5 rounds of `n`, in this process. */
function best(op: () => unknown, n = 2000): number {
  let min = Number.POSITIVE_INFINITY
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage()
    for (let i = 0; i < n; i++) op()
    const used = process.cpuUsage(before)
    min = Math.min(min, (used.user + used.system) / n)
  }
  return min
}

/** {@link best} for an operation that answers a promise: each one awaited before the next (CPU of every thread of the process). */
async function bestAsync(op: () => Promise<unknown>, n = 2000): Promise<number> {
  let min = Number.POSITIVE_INFINITY
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage()
    for (let i = 0; i < n; i++) await op()
    const used = process.cpuUsage(before)
    min = Math.min(min, (used.user + used.system) / n)
  }
  return min
}

/** CPU µs of one session-sized JWE seal and one open, and of one ES256 (P-256) signature check, in this process. */
async function cryptoCosts(): Promise<{ sealUs: number; openUs: number; es256Us: number }> {
  const payload = { name: "Bench", email: "bench@example.test", sub: "1", iat: 1, exp: 4e9, jti: "0190a0a0-0000-7000-8000-000000000000" }
  const token = await encryptJwt(payload, BENCH_SECRET, SESSION_COOKIE)
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const signed = randomBytes(69)
  const signature = sign("sha256", signed, privateKey)
  return {
    sealUs: await bestAsync(() => encryptJwt(payload, BENCH_SECRET, SESSION_COOKIE)),
    openUs: await bestAsync(() => decryptJwt(token, [BENCH_SECRET], SESSION_COOKIE)),
    es256Us: best(() => verify("sha256", signed, publicKey, signature), 500),
  }
}

const perRequest = (p: PhaseResult) => p.appCpuUs / p.requests

/** The median of the rounds' CPU per request (the mean of the middle two for an even count). */
function medianUs(rounds: readonly PhaseResult[]): number {
  return median(rounds.map(perRequest))
}

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2
}

/** The phases grouped by step, in the order the steps first ran (each step once per round). */
function byStep(phases: readonly PhaseResult[]): [string, PhaseResult[]][] {
  const steps = new Map<string, PhaseResult[]>()
  for (const p of phases) steps.set(p.step, [...(steps.get(p.step) ?? []), p])
  return [...steps]
}

/** Runs every step against one authchart app and returns the table's rows. */
export async function benchSteps(): Promise<StepsReport> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const flows = Array.from({ length: ROUNDS }, () => FLOWS).flat()
  const job: StepsJob = {
    mode: "steps",
    base,
    flows,
    count: COUNT,
    concurrency: CONCURRENCY,
    warmup: WARMUP,
    firstWarmup: FIRST_WARMUP,
    idp: IDP_CLIENT,
  }
  let app: App | undefined
  let failed: unknown
  try {
    const running = runLoadgen<{ phases: PhaseResult[]; loadgen: LoadgenCpu }>(job, (line, go) => {
      if (!line.startsWith('{"issuer"')) return
      const { issuer } = JSON.parse(line) as { issuer: string }
      const env = {
        BENCH_STEPS: "1",
        [IDP_ENV.issuer]: issuer,
        [IDP_ENV.clientId]: IDP_CLIENT.clientId,
        [IDP_ENV.clientSecret]: IDP_CLIENT.clientSecret,
      }
      startApp("authchart", port, env, APP_FLAGS).then(
        (started) => {
          app = started
          go()
        },
        (err: unknown) => {
          failed = err
          go() // the load generator then fails fast and the error above is thrown
        },
      )
    })
    // when the app did not start, its error is the one to show, not the load generator's that follows it
    const result = await running.catch((err: unknown) => {
      throw failed ?? err
    })
    if (failed) throw failed
    if (!app) throw new Error("the app did not start")
    const { sealUs, openUs, es256Us } = await cryptoCosts()
    const steps = byStep(result.phases)
    const session = steps.find(([, rounds]) => rounds[0]?.flow === "session")
    const sessionReadUs = session ? medianUs(session[1]) : Number.NaN
    const rows = steps.map(([step, rounds]): StepRow => {
      const flow = rounds[0]?.flow
      const crypto = CRYPTO[step]
      const us = medianUs(rounds)
      const own = crypto ? crypto.seals * sealUs + crypto.opens * openUs + (crypto.es256 ?? 0) * es256Us : 0
      // each round's step against the session reads taken right before and after it
      const reads = rounds.map((r) => r.pairedReadUs)
      const paired = reads.every((x): x is number => x !== undefined) && reads.length > 0 ? reads : null
      const pairedReadUs = paired ? median(paired) : null
      const budgetUs = crypto && pairedReadUs !== null ? 2 * pairedReadUs + own : null
      const inBudget = paired ? median(rounds.map((r, i) => perRequest(r) / (2 * (paired[i] as number) + own))) <= 1 : null
      const rowRead = Number.isFinite(sessionReadUs) && flow !== "bare" && flow !== "session" // not when BENCH_STEPS_FLOWS leaves the session read out
      return {
        step,
        requests: rounds.reduce((sum, r) => sum + r.requests, 0),
        bad: rounds.reduce((sum, r) => sum + r.bad, 0),
        appCpuUsPerRequest: us,
        roundsUs: rounds.map(perRequest),
        pairedReadUs,
        vsSessionRead: paired ? median(rounds.map((r, i) => perRequest(r) / (paired[i] as number))) : null,
        vsSessionRow: rowRead && paired ? us / sessionReadUs : null,
        budgetUs,
        withinBudget: budgetUs === null ? null : inBudget,
        crypto: crypto?.note ?? "",
        samples: rounds.flatMap((r) => r.samples),
        monoUs: rounds.map((r) => r.monoUs),
      }
    })
    return {
      rows,
      sessionReadUs,
      sealUs,
      openUs,
      es256Us,
      loadgen: result.loadgen,
      settings: { count: COUNT, concurrency: CONCURRENCY, warmup: WARMUP, firstWarmup: FIRST_WARMUP, rounds: ROUNDS },
      loadavg: loadavg(),
    }
  } finally {
    if (app) await stopApp(app)
  }
}

/** The steps table as Markdown. */
export function stepsTable(report: StepsReport): string {
  const out = [
    "| step (authchart, one app) | app CPU µs/request (median) | rounds | paired session read µs (median) | × paired read | budget µs (2× read + crypto) | within |",
    "|---|---:|---:|---:|---:|---:|:---:|",
  ]
  for (const r of report.rows) {
    const ratio = r.vsSessionRead === null ? "" : `${r.vsSessionRead.toFixed(1)}×`
    const budget = r.budgetUs === null ? "" : r.budgetUs.toFixed(0)
    const within = r.withinBudget === null ? "" : r.withinBudget ? "yes" : "no"
    const bad = r.bad ? ` (${r.bad} bad)` : ""
    const rounds = r.roundsUs.map((us) => us.toFixed(0)).join(", ")
    const read = r.pairedReadUs === null ? "" : r.pairedReadUs.toFixed(0)
    out.push(`| ${r.step}${bad} | ${r.appCpuUsPerRequest.toFixed(0)} | ${rounds} | ${read} | ${ratio} | ${budget} | ${within} |`)
  }
  out.push(
    "",
    `JWE seal ${report.sealUs.toFixed(1)} µs, open ${report.openUs.toFixed(1)} µs, ES256 check ${report.es256Us.toFixed(1)} µs (in process); ${report.settings.rounds} rounds of ${report.settings.count} requests ` +
      `per step at concurrency ${report.settings.concurrency}, each after ${report.settings.warmup} unmeasured (${report.settings.firstWarmup} before a flow's first round); load generator CPU ${report.loadgen.cpuMs.toFixed(0)} ms ` +
      `in ${(report.loadgen.wallMs / 1000).toFixed(0)} s; load average ${report.loadavg.map((l) => l.toFixed(2)).join(" ")}.`,
  )
  return out.join("\n")
}

const isMain = process.argv[1]?.endsWith("steps.ts") === true
if (isMain) {
  const report = await benchSteps()
  console.log(process.argv.includes("--json") ? JSON.stringify(report, null, 2) : stepsTable(report))
  if (report.rows.some((r) => r.bad > 0)) process.exitCode = 1
  process.exit()
}
