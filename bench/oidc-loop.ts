/**
 * An OIDC sign-in's two app requests (the start POST and the callback with its token request) in a tight
 * loop through `handleRequest` (in process, no HTTP to the app), with the bench app's provider
 * (`type: "oidc"`, issuer discovery, PKCE + state + nonce) and config (NODE_ENV=production, rate limits on
 * with maxima never reached). The provider is a stub in a child process of its own (its CPU is not this
 * process'): discovery, and a token endpoint that answers every code with an access token and an ID
 * token carrying the nonce the code names (the loop passes the authorization request's nonce as the
 * code; the stub checks nothing else). The token request is real HTTP on the app's own provider client.
 * `node --import tsx bench/oidc-loop.ts`, with MODE:
 * - `cpu` (default): CPU µs per sign-in (`process.cpuUsage`), ROUNDS rounds of N (5 × 2,000), after WARM.
 * - `alloc`: bytes allocated per sign-in; run with `--expose-gc --min-semi-space-size=256
 *   --max-semi-space-size=256` so no scavenge runs while it counts (heap used after − before).
 * - `split`: CPU µs of the start and of the callback apart (`process.cpuUsage` around each request), ROUNDS
 *   rounds of N; the callback's figure holds the token request's send and read, not the stub's work.
 * - `prof`: N sign-ins after WARM and nothing else, for `node --cpu-prof`.
 * - `heap`: where a sign-in's bytes are allocated (V8's sampling heap profiler, collected objects
 *   included, every 256 bytes on average): per sign-in, by function (self) and by file, over N sign-ins.
 * - `cov`: the functions a warm start and a warm callback run, by V8's precise coverage (call counts, N
 *   sign-ins of each counted after WARM): distinct functions and calls per request, grouped by file;
 *   COV_FUNCTIONS=<regexp> lists the functions whose "<file> <name>" matches.
 * Compare two checkouts by running it in each, alternating; report ratios, not absolute figures.
 */
import { spawn } from "node:child_process"
import { Session } from "node:inspector"
import { resolve } from "node:path"
import { createInterface } from "node:readline"
import { pathToFileURL } from "node:url"
import { handleRequest } from "../src/runtime/auth.js"
import { resolvedFor } from "../src/runtime/config.js"
import { parseCookies } from "../src/runtime/cookies.js"
import type { IncomingRequest } from "../src/runtime/context.js"
import type { AuthConfig } from "../src/types.js"
import { cpuRounds, roundsSummary } from "./loop-rounds.js"
import { BENCH_SECRET, IDP_PROVIDER_ID } from "./shared.js"

process.env.NODE_ENV = "production"
export const CLIENT_ID = "bench-loop"
export const BASE = "http://127.0.0.1:3000"

/** The stub provider (plain JavaScript for `node -e`): prints its issuer, serves discovery and /token. */
const STUB = `
const http = require("node:http")
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url")
const server = http.createServer((req, res) => {
  const issuer = "http://127.0.0.1:" + server.address().port
  if (req.url === "/.well-known/openid-configuration") {
    res.setHeader("content-type", "application/json")
    res.end(JSON.stringify({ issuer, authorization_endpoint: issuer + "/auth", token_endpoint: issuer + "/token",
      jwks_uri: issuer + "/jwks", response_types_supported: ["code"], subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"], authorization_response_iss_parameter_supported: true }))
    return
  }
  let body = ""
  req.on("data", (c) => (body += c))
  req.on("end", () => {
    const nonce = new URLSearchParams(body).get("code")
    const now = Math.floor(Date.now() / 1000)
    const claims = { iss: issuer, sub: "idp-user-1", aud: ${JSON.stringify(CLIENT_ID)}, iat: now, exp: now + 300, nonce,
      email: "ada@example.test", name: "Ada", email_verified: true }
    const idToken = b64({ alg: "RS256", typ: "JWT", kid: "k" }) + "." + b64(claims) + "." + "c2lnbmF0dXJl".repeat(28)
    res.setHeader("content-type", "application/json")
    res.setHeader("cache-control", "no-store")
    res.end(JSON.stringify({ access_token: "at-" + nonce, token_type: "Bearer", expires_in: 3600, scope: "openid profile email", id_token: idToken }))
  })
})
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port))
process.stdin.on("end", () => process.exit(0)).resume()
`

/** Starts the stub provider in a child process (ended with this one); resolves to its issuer. */
export function startStub(): Promise<string> {
  const child = spawn(process.execPath, ["-e", STUB], { stdio: ["pipe", "pipe", "inherit"] })
  process.on("exit", () => child.kill())
  return new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve))
}

/** A request as the integration hands it to `handleRequest`. */
export function request(method: string, url: string, cookie: string, body?: Record<string, string>): IncomingRequest {
  const headers: Record<string, string> = { host: "127.0.0.1:3000", cookie }
  if (body) Object.assign(headers, { "content-type": "application/x-www-form-urlencoded", origin: BASE })
  return {
    method,
    url: new URL(url),
    headers: { get: (n: string) => headers[n] ?? null },
    cookies: parseCookies(cookie),
    body,
    headerEntries: () => Object.entries(headers),
    clientIp: "127.0.0.1",
  }
}

/** "a=1; b=2" from the response's cookies (deletions left out). */
export function jar(
  cookies: readonly { name: string; value: string; options?: { maxAge?: number } }[] | undefined,
  ...extra: string[]
): string {
  const set = (cookies ?? []).filter((c) => c.value !== "" && c.options?.maxAge !== 0).map((c) => `${c.name}=${c.value}`)
  return [...extra, ...set].join("; ")
}

async function main() {
  const issuer = await startStub()
  const unlimited = { max: 1e9 }
  const authConfig: AuthConfig = {
    secret: BENCH_SECRET,
    trustHost: true,
    rateLimit: { rules: { client: unlimited, oauthClient: unlimited } },
    providers: [{ id: IDP_PROVIDER_ID, name: "Bench IdP", type: "oidc", issuer, clientId: CLIENT_ID, clientSecret: "bench-loop-secret" }],
  }
  const config = resolvedFor(authConfig)
  const csrf = await handleRequest(request("GET", `${BASE}/auth/csrf`, ""), config)
  const csrfToken = (csrf.response.body as { csrfToken: string }).csrfToken
  const csrfCookie = jar(csrf.response.cookies)
  const callbackUrl = `${BASE}/dashboard`
  const spent = { start: 0, callback: 0, system: 0 }
  let between: (() => void) | undefined
  let system = 0
  const cpu = () => {
    const use = process.cpuUsage()
    system = use.system
    return use.user + use.system
  }
  const one = async () => {
    const c0 = cpu()
    const start = await handleRequest(
      request("POST", `${BASE}/auth/signin/${IDP_PROVIDER_ID}`, csrfCookie, { csrfToken, callbackUrl }),
      config,
    )
    const authz = new URL(start.response.redirect ?? "")
    const state = authz.searchParams.get("state") ?? ""
    const nonce = authz.searchParams.get("nonce") ?? ""
    const back = new URLSearchParams({ code: nonce, state, iss: issuer })
    const cookie = jar(start.response.cookies, csrfCookie)
    between?.()
    const c1 = cpu()
    const s1 = system
    const done = await handleRequest(request("GET", `${BASE}/auth/callback/${IDP_PROVIDER_ID}?${back}`, cookie), config)
    const c2 = cpu()
    spent.start += c1 - c0
    spent.callback += c2 - c1
    spent.system += system - s1
    if (done.response.redirect !== callbackUrl || !done.response.cookies?.some((c) => c.name.includes("session-token"))) {
      throw new Error(`callback: ${JSON.stringify(done.response).slice(0, 400)}`)
    }
  }
  const mode = process.env.MODE ?? "cpu"
  const N = Number(process.env.N ?? 2000)
  for (let i = 0, warm = Number(process.env.WARM ?? 3000); i < warm; i++) await one()
  if (mode === "alloc") {
    const gc = (globalThis as { gc?: () => void }).gc
    if (!gc) throw new Error("MODE=alloc needs --expose-gc")
    const res: number[] = []
    for (let round = 0; round < 3; round++) {
      gc()
      const before = process.memoryUsage().heapUsed
      for (let i = 0; i < N; i++) await one()
      res.push((process.memoryUsage().heapUsed - before) / N)
    }
    console.log(`alloc bytes/sign-in (start + callback): ${res.map((x) => x.toFixed(0)).join(" ")}`)
    process.exit(0)
  }
  if (mode === "split") {
    const starts: number[] = []
    const callbacks: number[] = []
    const systems: number[] = []
    for (let round = 0, rounds = Number(process.env.ROUNDS ?? 5); round < rounds; round++) {
      spent.start = spent.callback = spent.system = 0
      for (let i = 0; i < N; i++) await one()
      starts.push(spent.start / N)
      callbacks.push(spent.callback / N)
      systems.push(spent.system / N)
    }
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b)
    console.log(`cpu µs per start (with the jar's reading): ${roundsSummary(sorted(starts))}`)
    console.log(`cpu µs per callback (with the token request): ${roundsSummary(sorted(callbacks))}`)
    console.log(`  of which system CPU: ${roundsSummary(sorted(systems))}`)
    process.exit(0)
  }
  if (mode === "heap") {
    await heapSampling(one, N)
    process.exit(0)
  }
  if (mode === "cov") {
    const counts = await coverage(one, (hook) => (between = hook), Math.min(N, 50))
    for (const [name, fns] of counts) {
      const byFile = new Map<string, { fns: number; calls: number }>()
      let calls = 0
      for (const [fn, count] of fns) {
        const file = fn.slice(0, fn.indexOf(" "))
        const entry = byFile.get(file) ?? { fns: 0, calls: 0 }
        entry.fns++
        entry.calls += count
        byFile.set(file, entry)
        calls += count
      }
      console.log(`${name}: ${fns.size} distinct functions, ${calls.toFixed(1)} calls per request`)
      for (const [file, e] of [...byFile].sort((a, b) => b[1].calls - a[1].calls)) {
        console.log(`  ${e.calls.toFixed(1).padStart(7)} calls ${String(e.fns).padStart(4)} fns  ${file}`)
      }
      if (process.env.COV_FUNCTIONS) {
        const wanted = new RegExp(process.env.COV_FUNCTIONS)
        for (const [fn, c] of [...fns].sort((a, b) => b[1] - a[1]))
          if (wanted.test(fn)) console.log(`    ${c.toFixed(1).padStart(6)}  ${fn}`)
      }
    }
    process.exit(0)
  }
  if (mode === "prof") {
    for (let i = 0; i < N; i++) await one()
    process.exit(0)
  }
  const rounds = Number(process.env.ROUNDS ?? 5)
  console.log(`cpu µs/sign-in (start + callback): ${roundsSummary(await cpuRounds(one, N, rounds))}`)
  process.exit(0)
}
interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: SamplingNode[]
}

/** Bytes allocated per sign-in by function (self) and by file, from V8's sampling heap profiler. */
async function heapSampling(one: () => Promise<void>, n: number): Promise<void> {
  const session = new Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))))
  await post("HeapProfiler.enable")
  await post("HeapProfiler.startSampling", {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  for (let i = 0; i < n; i++) await one()
  const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: { head: SamplingNode } }
  const byFn = new Map<string, number>()
  const byFile = new Map<string, number>()
  let total = 0
  const walk = (node: SamplingNode, path: string) => {
    const { functionName, url, lineNumber } = node.callFrame
    const file = fileGroup(url)
    const here = `${file} ${functionName || "(anonymous)"}:${lineNumber + 1}`
    // a built-in's allocation counts for its caller
    const key = url === "" && path !== "" ? `${path} > ${functionName || "(native)"}` : here
    byFn.set(key, (byFn.get(key) ?? 0) + node.selfSize)
    byFile.set(file || path.split(" ")[0] || "(native)", (byFile.get(file || path.split(" ")[0] || "(native)") ?? 0) + node.selfSize)
    total += node.selfSize
    for (const child of node.children) walk(child, url === "" ? path : here)
  }
  walk(profile.head, "")
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, bytes]) => `${(bytes / n).toFixed(0).padStart(7)}  ${name}`)
      .join("\n")
  console.log(`sampled bytes per sign-in: ${(total / n).toFixed(0)}`)
  console.log(`by file:\n${top(byFile, 30)}`)
  console.log(`by function (self):\n${top(byFn, 60)}`)
}

interface ScriptCoverage {
  url: string
  functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[]
}

/** Where a function lives, short: a node: module, a package, or the file under the checkout. */
function fileGroup(url: string): string {
  if (url.startsWith("node:")) return url.replace(/^node:internal\/(\w+).*$/, "node:internal/$1")
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1] ?? url
  const own = /\/(src|bench)\/(.*)$/.exec(url)
  return own ? `${own[1]}/${own[2]}` : url || "(anonymous)"
}

/**
 * Per-request call counts of every function a start and a callback run (V8 precise coverage, which
 * resets its counters at each take): n sign-ins, each counted in two parts (start, callback).
 */
async function coverage(
  one: () => Promise<void>,
  setBetween: (hook: () => void) => void,
  n: number,
): Promise<Map<string, Map<string, number>>> {
  const session = new Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))))
  let taken: ScriptCoverage[] = []
  // Session.post answers synchronously on the main thread: the callback runs before post returns
  const take = () => session.post("Profiler.takePreciseCoverage", (err, res) => (taken = err ? [] : (res.result as ScriptCoverage[])))
  await post("Profiler.enable")
  await post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  const result = new Map([
    ["start", new Map<string, number>()],
    ["callback", new Map<string, number>()],
  ])
  const add = (into: Map<string, number>) => {
    for (const script of taken) {
      for (const fn of script.functions) {
        const count = fn.ranges[0]?.count ?? 0
        if (count === 0) continue
        const key = `${fileGroup(script.url)} ${fn.functionName || "(anonymous)"}@${fn.ranges[0]?.startOffset}`
        into.set(key, (into.get(key) ?? 0) + count / n)
      }
    }
  }
  setBetween(() => {
    take()
    add(result.get("start") ?? new Map())
  })
  for (let i = 0; i < n; i++) {
    take()
    await one()
    take()
    add(result.get("callback") ?? new Map())
  }
  return result
}

// run as a script (bench/oidc-ab.ts imports its helpers)
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(e)
    process.exit(1)
  })
}
