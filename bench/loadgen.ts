/**
 * The bench's load generator, a child process of its own (`tsx bench/loadgen.ts '<job JSON>'`), so its
 * CPU never counts as the app's and is reported apart. Two jobs:
 *
 * - `cannon`: autocannon against one request for a duration; every response is checked (bench/verify.ts)
 *   and only verified ones count. With `warmupS`, a warm-up run first, then a `go` line on stdin.
 * - `steps`: flows driven step by step (credentials, OIDC against a local OpenID provider that runs in
 *   THIS process, email link, TOTP step, session read, bare route). Each step is a phase of `count`
 *   requests at `concurrency`; the app's own CPU (its `/__cpu`) is read before and after each phase, so
 *   the CPU per request of every step is the app's alone (the provider's time is in this process).
 *   With the provider, the job first prints `{"issuer": …}` and waits for a `go` line on stdin.
 *
 * Prints one JSON line with the result, and this process' CPU time.
 */
import { Agent, request } from "node:http"
import { createInterface } from "node:readline"
import autocannon from "autocannon"
import { totpCode } from "../src/steps/totp.js"
import { type OidcServer, startOidcProvider } from "../tests/support/oidc-provider.js"
import {
  CSRF_COOKIE,
  EMAIL_PROVIDER_ID,
  ESSENTIAL_PASSKEY,
  ESSENTIAL_TOTP,
  IDP_KEEP_ALIVE_MS,
  IDP_PROVIDER_ID,
  PASSKEY_PROVIDER_ID,
  SESSION_COOKIE,
  TOTP_PROVIDER_ID,
} from "./shared.js"
import { benchTotpSecret } from "./totp-secret.js"
import { type VerifySpec, verifier } from "./verify.js"
import { SoftAuthenticator } from "./webauthn-authenticator.js"

export interface CannonJob {
  mode: "cannon"
  base: string
  request: { method: "GET" | "POST"; path: string; headers: Record<string, string>; body?: string }
  verify: VerifySpec
  connections: number
  durationS: number
  /** Send exactly this many requests (the job ends then; `durationS` is ignored). */
  amount?: number
  /**
   * Run this many seconds first (checked the same way), print `{"warm": …}` and wait for a `go` line on
   * stdin before the measured run, so the caller can read the app's CPU in between without a new process.
   */
  warmupS?: number
}

/** The steps a `steps` job can run, in the order given. */
export type StepFlow = "bare" | "session" | "csrf" | "integration" | "credentials" | "oidc" | "email" | "totp" | "webauthn"

export interface StepsJob {
  mode: "steps"
  base: string
  flows: StepFlow[]
  count: number
  concurrency: number
  /** Each flow runs this many times first, unmeasured (JIT and caches warm), before each of its measured runs. */
  warmup: number
  /**
   * Before a flow's first measured run, it runs this many times instead (unmeasured): a flow's steps keep
   * getting cheaper for a few thousand requests while V8 optimises their code, and the figure wanted is
   * the step's cost in a server that has run it for a while, as the side-by-side table's routes are
   * measured after thousands of requests.
   */
  firstWarmup?: number
  /** Start the OpenID provider here, with this client (its redirect URI points at `base`). */
  idp?: { clientId: string; clientSecret: string }
}

export interface PhaseResult {
  flow: StepFlow
  step: string
  requests: number
  ok: number
  bad: number
  samples: string[]
  /** The app's CPU over the phase, µs. */
  appCpuUs: number
  wallMs: number
  /** The phase's start and end on the monotonic clock, µs (a CPU profile of the app can be cut by them). */
  monoUs: [number, number]
  /**
   * The app's CPU per session read, µs, in two phases of session reads (the same count and concurrency)
   * run right before and right after this one, averaged: the reference a step is held to, taken under
   * the conditions the step ran in. Absent for the floor, the session read itself and phases that are
   * not the app's.
   */
  pairedReadUs?: number
}

export interface LoadgenCpu {
  /** This process' CPU over the job, ms. */
  cpuMs: number
  wallMs: number
}

const TIMEOUT_MS = 10_000

// ---------------------------------------------------------------- cannon

async function cannon(job: CannonJob) {
  const verify = verifier(job.verify)
  const check = { ok: 0, bad: 0, samples: [] as string[] }
  const lower = (raw: Record<string, string | string[]>) => {
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = v
    return out
  }
  const result = await autocannon({
    url: job.base,
    connections: job.connections,
    duration: job.durationS,
    ...(job.amount === undefined ? {} : { amount: job.amount }),
    timeout: 10,
    requests: [
      {
        ...job.request,
        onResponse: (status: number, body: string, _ctx: unknown, headers: Record<string, string | string[]>) => {
          const problem = verify(status, body, lower(headers ?? {}))
          if (problem === null) check.ok++
          else {
            check.bad++
            if (check.samples.length < 5) check.samples.push(problem)
          }
        },
      },
    ],
  })
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats as Record<string, { count: number }>)) statusCodes[code] = count
  return {
    ok: check.ok,
    bad: check.bad,
    samples: check.samples,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    durationS: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    reqPerSecAvg: result.requests.average,
  }
}

// ---------------------------------------------------------------- steps

interface Answer {
  status: number
  location: string | null
  setCookies: string[]
  body: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** One request over a kept-alive connection (node:http: far less client CPU than fetch). */
function call(url: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (init.cookie) headers.cookie = init.cookie
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined
  if (body !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded"
    headers["content-length"] = String(Buffer.byteLength(body))
  }
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, agent, timeout: TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const setCookie = res.headers["set-cookie"] ?? []
          resolve({
            status: res.statusCode ?? 0,
            location: (res.headers.location as string | undefined) ?? null,
            setCookies: setCookie,
            body: Buffer.concat(chunks).toString("utf8"),
          })
        })
        res.on("error", reject)
      },
    )
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)))
    req.on("error", reject)
    req.end(body)
  })
}

/** `name=value` of a Set-Cookie that sets (not clears) `name`. */
function pair(setCookies: readonly string[], name: string): string | undefined {
  for (const line of setCookies) {
    const first = line.split(";", 1)[0] ?? ""
    if (first.startsWith(`${name}=`) && first.length > name.length + 1 && !/;\s*max-age=0/i.test(line)) return first
  }
  return undefined
}

/** Every cookie a response sets, as one Cookie header (chunks and flow cookies included). */
function jarOf(setCookies: readonly string[], ...extra: (string | undefined)[]): string {
  const set = setCookies.filter((l) => !/;\s*max-age=0/i.test(l)).map((l) => l.split(";", 1)[0] as string)
  return [...extra.filter((x): x is string => !!x), ...set].join("; ")
}

async function appCpu(base: string): Promise<number> {
  const { user, system } = JSON.parse((await call(`${base}/__cpu`)).body) as { user: number; system: number }
  return user + system
}

/** Runs `run(i)` for i < count at `concurrency`, reading the app's CPU around it. */
async function phase(
  base: string,
  flow: StepFlow,
  step: string,
  count: number,
  concurrency: number,
  run: (i: number) => Promise<string | null>,
): Promise<PhaseResult> {
  const result: PhaseResult = { flow, step, requests: count, ok: 0, bad: 0, samples: [], appCpuUs: 0, wallMs: 0, monoUs: [0, 0] }
  let next = 0
  const cpuBefore = await appCpu(base)
  const started = performance.now()
  const mono = () => Number(process.hrtime.bigint() / 1000n)
  result.monoUs[0] = mono()
  const worker = async () => {
    while (next < count) {
      const i = next++
      let problem: string | null
      try {
        problem = await run(i)
      } catch (err) {
        problem = `${(err as Error).name}: ${(err as Error).message}`
      }
      if (problem === null) result.ok++
      else {
        result.bad++
        if (result.samples.length < 5) result.samples.push(`#${i}: ${problem}`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  result.wallMs = performance.now() - started
  result.monoUs[1] = mono()
  result.appCpuUs = (await appCpu(base)) - cpuBefore
  return result
}

const redirected = (a: Answer, to: (location: string) => boolean, what: string): string | null =>
  (a.status === 302 || a.status === 303) && a.location !== null && to(a.location)
    ? null
    : `${what}: ${a.status} ${a.location} ${a.body.slice(0, 120)}`

/** A phase's own name says when its CPU is not the app's work for a step (the provider's part, bench plumbing). */
const notAStep = (step: string) => step.includes("not the app") || step.includes("plumbing")

/** One phase of session reads with `sessionCookie` (the reference a step is paired with). */
function sessionReads(base: string, flow: StepFlow, sessionCookie: string | undefined, count: number, concurrency: number) {
  return phase(base, flow, "GET /auth/session", count, concurrency, async () => {
    const a = await call(`${base}/auth/session`, { cookie: sessionCookie })
    return a.status === 200 && a.body.includes('"email":"bench@example.test"') ? null : `session: ${a.status} ${a.body.slice(0, 80)}`
  })
}

async function runFlow(job: StepsJob, flow: StepFlow, idp: OidcServer | undefined, run: number): Promise<PhaseResult[]> {
  const { base, count, concurrency } = job
  const csrf = await call(`${base}/auth/csrf`)
  const csrfCookie = pair(csrf.setCookies, CSRF_COOKIE) as string
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
  const callbackUrl = `${base}/dashboard`
  const sessionForm = { csrfToken, username: "bench", password: "bench", callbackUrl }
  const sessionCookie = pair(
    (await call(`${base}/auth/callback/credentials`, { cookie: csrfCookie, form: sessionForm })).setCookies,
    SESSION_COOKIE,
  )
  const paired = run >= 0 && flow !== "bare" && flow !== "session" // warm-up runs (run < 0) measure nothing
  /** A step's phase; an app step is put between two phases of session reads (see `pairedReadUs`). */
  const go = async (step: string, fn: (i: number) => Promise<string | null>): Promise<PhaseResult> => {
    if (!paired || notAStep(step)) return phase(base, flow, step, count, concurrency, fn)
    const before = await sessionReads(base, flow, sessionCookie, count, concurrency)
    const measured = await phase(base, flow, step, count, concurrency, fn)
    const after = await sessionReads(base, flow, sessionCookie, count, concurrency)
    const bad = before.bad + after.bad
    if (bad > 0) {
      measured.bad += bad
      measured.samples.push(...before.samples, ...after.samples)
    }
    measured.pairedReadUs = (before.appCpuUs / before.requests + after.appCpuUs / after.requests) / 2
    return measured
  }
  const signedIn = (a: Answer, what: string) =>
    redirected(a, (l) => l === callbackUrl, what) ?? (pair(a.setCookies, SESSION_COOKIE) ? null : `${what}: no session cookie`)
  const tag = `${run}-${Date.now().toString(36)}`
  switch (flow) {
    case "bare":
      return [await go("GET /__bare", async () => ((await call(`${base}/__bare`)).status === 200 ? null : "status"))]
    case "csrf":
      return [
        await go("GET /auth/csrf (new visitor)", async () => {
          const a = await call(`${base}/auth/csrf`)
          return a.status === 200 && pair(a.setCookies, CSRF_COOKIE) ? null : `csrf: ${a.status}`
        }),
      ]
    case "session":
      return [await sessionReads(base, flow, sessionCookie, count, concurrency)]
    case "integration": {
      const form = { csrfToken, username: "bench", password: "bench", callbackUrl }
      return [
        await go("POST /__integration (the Express integration alone)", async () =>
          signedIn(await call(`${base}/__integration`, { cookie: csrfCookie, form }), "integration"),
        ),
      ]
    }
    case "credentials": {
      const form = { csrfToken, username: "bench", password: "bench", callbackUrl }
      return [
        await go("POST /auth/callback/credentials", async () =>
          signedIn(await call(`${base}/auth/callback/credentials`, { cookie: csrfCookie, form }), "sign-in"),
        ),
      ]
    }
    case "oidc": {
      if (!idp) throw new Error("the oidc flow needs the provider (job.idp)")
      const started: { cookie: string; authz: string }[] = []
      const callbacks: { cookie: string; url: string }[] = []
      const start = await go("POST /auth/signin/<oidc> (start)", async (i) => {
        const a = await call(`${base}/auth/signin/${IDP_PROVIDER_ID}`, { cookie: csrfCookie, form: { csrfToken, callbackUrl } })
        const bad = redirected(a, (l) => l.startsWith(`${idp.issuer}/`), "start")
        if (!bad) started[i] = { cookie: jarOf(a.setCookies, csrfCookie), authz: a.location as string }
        return bad
      })
      // the provider's part (login + consent), not the app's: its own phase
      const provider = await go("provider login + consent (not the app)", async (i) => {
        const s = started[i]
        if (!s) return "no start"
        const answer = await idp.authorize(s.authz)
        if (answer.kind !== "redirect") return `provider answered ${answer.kind}`
        callbacks[i] = { cookie: s.cookie, url: answer.url }
        return null
      })
      const callback = await go("GET /auth/callback/<oidc> (code exchange)", async (i) => {
        const c = callbacks[i]
        if (!c) return "no callback"
        return signedIn(await call(c.url, { cookie: c.cookie }), "callback")
      })
      return [start, provider, callback]
    }
    case "email": {
      const links: string[] = []
      const request = await go("POST /auth/signin/email (send link)", async (i) => {
        const email = `u${i}-${tag}@bench.test`
        const a = await call(`${base}/auth/signin/${EMAIL_PROVIDER_ID}`, { cookie: csrfCookie, form: { csrfToken, email, callbackUrl } })
        return redirected(a, (l) => l.includes("/auth/verify-request"), "request")
      })
      // reading the kept links is bench plumbing: its own phase
      const collect = await go("read the sent links (bench plumbing)", async (i) => {
        const a = await call(`${base}/__mail?email=${encodeURIComponent(`u${i}-${tag}@bench.test`)}`)
        const { url } = JSON.parse(a.body) as { url: string | null }
        if (!url) return "no link"
        links[i] = url
        return null
      })
      const verify = await go("GET /auth/callback/email (verify link)", async (i) => {
        const url = links[i]
        if (!url) return "no link"
        return signedIn(await call(url), "verify")
      })
      return [request, collect, verify]
    }
    case "totp": {
      const resting: string[] = []
      const password = await go("POST /auth/callback/totp (password, rests on the TOTP step)", async (i) => {
        const form = { csrfToken, username: `totp-${tag}-${i}`, password: "bench", callbackUrl }
        const a = await call(`${base}/auth/callback/${TOTP_PROVIDER_ID}`, { cookie: csrfCookie, form })
        if (a.status !== 200 || !a.body.includes('name="code"')) return `password: ${a.status} ${a.location} ${a.body.slice(0, 120)}`
        resting[i] = jarOf(a.setCookies, csrfCookie)
        return null
      })
      const secrets: string[] = []
      for (let i = 0; i < count; i++) secrets[i] = await benchTotpSecret(`totp-${tag}-${i}`)
      // the same requests to a route doing only what the step cannot skip (bench/essential.ts; BENCH_STEPS_ESSENTIAL=0 leaves it out)
      const essential =
        process.env.BENCH_STEPS_ESSENTIAL !== "0"
          ? [
              await go(ESSENTIAL_TOTP, async (i) => {
                const cookie = resting[i]
                if (!cookie) return "not resting"
                const form = { csrfToken, step: "totp", code: totpCode(secrets[i] as string) }
                return signedIn(await call(`${base}/__essential/totp-code`, { cookie, form }), "essential code")
              }),
            ]
          : []
      const code = await go("POST /auth/callback/totp (TOTP code)", async (i) => {
        const cookie = resting[i]
        if (!cookie) return "not resting"
        const form = { csrfToken, step: "totp", code: totpCode(secrets[i] as string) }
        return signedIn(await call(`${base}/auth/callback/${TOTP_PROVIDER_ID}`, { cookie, form }), "code")
      })
      return [password, ...essential, code]
    }
    case "webauthn": {
      // a passkey registered (options + verify), then used to sign in (options + verify); the
      // authenticator's signing is this process' CPU, not the app's
      const authenticator = new SoftAuthenticator(base)
      const email = (i: number) => `p${i}-${tag}@bench.test`
      const ceremony = (action: "register" | "authenticate") => {
        const pending: { cookie: string; options: { challenge: string; rp: { id?: string }; rpId?: string } }[] = []
        const options = go(`GET /auth/webauthn-options/passkey (${action})`, async (i) => {
          const query = new URLSearchParams({ action, email: email(i), callbackUrl })
          const a = await call(`${base}/auth/webauthn-options/${PASSKEY_PROVIDER_ID}?${query}`, { cookie: csrfCookie })
          if (a.status !== 200) return `options: ${a.status} ${a.body.slice(0, 120)}`
          const answer = JSON.parse(a.body) as { action: string; options: (typeof pending)[number]["options"] }
          if (answer.action !== action) return `options: asked ${action}, got ${answer.action}`
          pending[i] = { cookie: jarOf(a.setCookies, csrfCookie), options: answer.options }
          return null
        })
        const post = (step: string, url: string) =>
          go(step, async (i) => {
            const p = pending[i]
            if (!p) return "no options"
            const response =
              action === "register" ? authenticator.register(email(i), p.options) : authenticator.authenticate(email(i), p.options)
            const form = { csrfToken, action, data: JSON.stringify(response) }
            return signedIn(await call(url, { cookie: p.cookie, form }), action)
          })
        const verify = async () => post(`POST /auth/callback/passkey (${action})`, `${base}/auth/callback/${PASSKEY_PROVIDER_ID}`)
        return { options, verify, post }
      }
      const register = ceremony("register")
      const registerOptions = await register.options
      const registerVerify = await register.verify()
      const authenticate = ceremony("authenticate")
      const authenticateOptions = await authenticate.options
      // the same sign-ins first to a route doing only what the step cannot skip (bench/essential.ts; BENCH_STEPS_ESSENTIAL=0 leaves it out)
      const essential =
        process.env.BENCH_STEPS_ESSENTIAL !== "0"
          ? [await authenticate.post(ESSENTIAL_PASSKEY, `${base}/__essential/passkey-authenticate`)]
          : []
      const authenticateVerify = await authenticate.verify()
      return [registerOptions, registerVerify, authenticateOptions, ...essential, authenticateVerify]
    }
  }
}

async function steps(job: StepsJob, idp: OidcServer | undefined) {
  const phases: PhaseResult[] = []
  const warmed = new Set<StepFlow>()
  for (const [run, flow] of job.flows.entries()) {
    const count = warmed.has(flow) ? job.warmup : Math.max(job.warmup, job.firstWarmup ?? 0)
    warmed.add(flow)
    if (count > 0) await runFlow({ ...job, count }, flow, idp, -1 - run)
    phases.push(...(await runFlow(job, flow, idp, run)))
  }
  return { phases }
}

// ---------------------------------------------------------------- main

/** Waits for the caller's `go` line on stdin. */
async function nextLine(): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  await new Promise<void>((resolve) => lines.once("line", () => resolve()))
  lines.close()
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? "{}") as CannonJob | StepsJob
  let cpuBefore = process.cpuUsage()
  let wallBefore = performance.now()
  let result: object
  if (job.mode === "cannon") {
    if (job.warmupS) {
      process.stdout.write(`${JSON.stringify({ warm: await cannon({ ...job, durationS: job.warmupS, amount: undefined }) })}\n`)
      await nextLine()
      // this process' CPU is reported for the measured run alone
      cpuBefore = process.cpuUsage()
      wallBefore = performance.now()
    }
    result = await cannon(job)
  } else if (job.mode === "steps") {
    let idp: OidcServer | undefined
    if (job.idp) {
      idp = await startOidcProvider({
        clients: [
          {
            client_id: job.idp.clientId,
            client_secret: job.idp.clientSecret,
            redirect_uris: [`${job.base}/auth/callback/${IDP_PROVIDER_ID}`],
          },
        ],
        keepAliveTimeoutMs: IDP_KEEP_ALIVE_MS,
      })
      process.stdout.write(`${JSON.stringify({ issuer: idp.issuer })}\n`)
      await nextLine()
    }
    try {
      result = await steps(job, idp)
    } finally {
      await idp?.stop()
    }
  } else throw new Error(`unknown job ${JSON.stringify(job)}`)
  const used = process.cpuUsage(cpuBefore)
  const loadgen: LoadgenCpu = { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wallBefore }
  process.stdout.write(`${JSON.stringify({ ...result, loadgen })}\n`)
  process.exit(0)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
