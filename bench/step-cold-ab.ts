/**
 * `tsx bench/step-cold-ab.ts <label>=<dist> <label>=<dist>`: the two TOTP steps (the password POST that
 * rests on the TOTP step, then the TOTP code POST) through `handleRequest` of two builds of authchart in
 * one process, as bench/cold-ab.ts runs the credentials sign-in: the builds take turns user by user (the
 * order flips every user), each request after a cache eviction (bench/cold.ts) and timed alone by the
 * process' CPU time, so a shared machine's load falls on both alike. Each build has the steps bench's
 * config (bench/steps-providers.ts: memory adapter, JWT sessions, rate limits on with maxima never
 * reached). N (2,000) users per build after 1,000 unmeasured. Prints each step's median, quartiles and
 * mean per build in µs, and the medians' ratios. HOT=1 runs the same without the evictions (the hot loop's view).
 *
 * Example: `git archive main | tar -x -C /tmp/base && (cd /tmp/base && ln -s $PWD/node_modules && npm run
 * build)`, then `npm run build && tsx bench/step-cold-ab.ts base=/tmp/base/dist new=dist`.
 */
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { totpCode } from "../src/steps/totp.js"
import { buildsFromArgs, cpuUs, evict, reportMedians } from "./cold.js"
import { BENCH_SECRET, TOTP_PROVIDER_ID } from "./shared.js"
import { type StepsLib, stepsProviders } from "./steps-providers.js"
import { benchTotpSecret } from "./totp-secret.js"

process.env.NODE_ENV = "production"
const N = Number(process.env.N ?? 2000)
const HOT = process.env.HOT === "1"
const BASE = "http://127.0.0.1:3000"
const callbackUrl = `${BASE}/dashboard`

interface Answer {
  response: { body?: unknown; redirect?: string; status?: number; cookies?: { name: string; value: string }[] }
}
type Handle = (request: object, config: unknown) => Promise<Answer>

/** One build's two steps for a user, each answer checked by `check` after it is timed. */
interface Build {
  password(user: string): Promise<Answer>
  code(jar: string, code: string): Promise<Answer>
  /** The password step's answer checked; the cookie jar the code step sends. */
  passwordChecked(answer: Answer): string
  codeChecked(answer: Answer): void
}

async function build(dist: string): Promise<Build> {
  const at = (path: string) => import(pathToFileURL(resolve(dist, path)).href)
  const [{ handleRequest }, { resolvedFor }, { parseCookies }, credentials, index, totp, memory] = await Promise.all([
    at("runtime/auth.js") as Promise<{ handleRequest: Handle }>,
    at("runtime/config.js") as Promise<{ resolvedFor(config: object): unknown }>,
    at("runtime/cookies.js") as Promise<{ parseCookies(header: string | null): unknown }>,
    at("providers/credentials.js") as Promise<{ default: StepsLib["Credentials"] }>,
    at("index.js") as Promise<{ credentialsFlow: unknown; extendFlow: StepsLib["extendFlow"] }>,
    at("steps/totp.js") as Promise<{ totpStep: StepsLib["totpStep"] }>,
    at("adapters/memory.js") as Promise<{ MemoryAdapter(): object }>,
  ])
  const lib: StepsLib = {
    Credentials: credentials.default,
    credentialsFlow: index.credentialsFlow,
    extendFlow: index.extendFlow,
    totpStep: totp.totpStep,
  }
  const { flows, providers } = stepsProviders(lib, new Map())
  const unlimited = { max: 1e9 }
  const config = resolvedFor({
    secret: BENCH_SECRET,
    trustHost: true,
    adapter: memory.MemoryAdapter(),
    session: { strategy: "jwt" },
    flows,
    providers,
    rateLimit: { rules: { client: unlimited, passwordAccount: unlimited, passwordClient: unlimited, passwordAccounts: unlimited } },
  })
  const request = (method: string, url: string, cookie: string, body?: Record<string, string>) => {
    const headers: Record<string, string> = { host: "127.0.0.1:3000", cookie }
    if (body) headers["content-type"] = "application/x-www-form-urlencoded"
    return {
      method,
      url: new URL(url),
      headers: { get: (name: string) => headers[name] ?? null },
      cookies: parseCookies(cookie),
      body,
      headerEntries: () => Object.entries(headers),
      clientIp: "127.0.0.1",
    }
  }
  const jarOf = (answer: Answer, ...extra: string[]) =>
    [...extra, ...(answer.response.cookies ?? []).filter((c) => c.value !== "").map((c) => `${c.name}=${c.value}`)].join("; ")
  const got = await handleRequest(request("GET", `${BASE}/auth/csrf`, ""), config)
  const token = (got.response.body as { csrfToken: string }).csrfToken
  const csrfCookie = jarOf(got)
  const url = `${BASE}/auth/callback/${TOTP_PROVIDER_ID}`
  return {
    password: (user) =>
      handleRequest(request("POST", url, csrfCookie, { csrfToken: token, username: user, password: "bench", callbackUrl }), config),
    code: (jar, code) => handleRequest(request("POST", url, jar, { csrfToken: token, step: "totp", code }), config),
    passwordChecked(answer) {
      if (answer.response.status !== 200 || !String(answer.response.body).includes('name="code"')) throw new Error(`${dist}: no TOTP page`)
      return jarOf(answer, csrfCookie)
    },
    codeChecked(answer) {
      if (answer.response.redirect !== callbackUrl) throw new Error(`${dist}: not signed in`)
    },
  }
}

const sides = (await buildsFromArgs("tsx bench/step-cold-ab.ts <label>=<dist> <label>=<dist>", build)).map(({ label, build }) => ({
  label,
  steps: build,
  password: [] as number[],
  code: [] as number[],
}))
let users = 0
for (let i = 0; i < 1000 + N; i++) {
  const measured = i >= 1000
  // the order flips every user, so neither build always runs right after the other
  const order = i % 2 ? sides : [...sides].reverse()
  const user = `totp-ab-${users++}`
  const code = totpCode(await benchTotpSecret(user))
  const jars: string[] = []
  for (const side of order) {
    if (measured && !HOT) evict()
    const start = cpuUs()
    const answer = await side.steps.password(user)
    if (measured) side.password.push(cpuUs() - start)
    jars.push(side.steps.passwordChecked(answer))
  }
  for (const [k, side] of order.entries()) {
    if (measured && !HOT) evict()
    const start = cpuUs()
    const answer = await side.steps.code(jars[k] as string, code)
    if (measured) side.code.push(cpuUs() - start)
    side.steps.codeChecked(answer)
  }
}
for (const step of ["password", "code"] as const) {
  reportMedians(
    `TOTP ${step} step, ${HOT ? "hot" : "cold"}`,
    sides.map((side) => ({ label: side.label, times: side[step] })),
  )
}
