/**
 * A credentials sign-in POST in a tight loop through `handleRequest` (in process, no HTTP), with the
 * bench app's config (NODE_ENV=production, rate limits on with maxima never reached; RL=0 turns them
 * off). `node --import tsx bench/signin-loop.ts`, with MODE:
 * - `cpu` (default): CPU µs per sign-in (`process.cpuUsage`), ROUNDS rounds of N (5 × 10,000).
 * - `alloc`: bytes allocated per sign-in; run with `--expose-gc --min-semi-space-size=256
 *   --max-semi-space-size=256` so no scavenge runs while it counts (heap used after − before).
 * - `heap`: a sampling heap profile of N sign-ins (garbage included) written to OUT (a .heapprofile).
 * - `prof`: N sign-ins and nothing else, for `node --cpu-prof`.
 * - `promises`: promises made per sign-in (V8's promise hooks, the loop's own included).
 * Compare two checkouts by running it in each, alternating; report ratios, not absolute figures.
 */
import Credentials from "../src/providers/credentials.js"
import { handleRequest } from "../src/runtime/auth.js"
import { resolvedFor } from "../src/runtime/config.js"
import { parseCookies } from "../src/runtime/cookies.js"
import type { IncomingRequest } from "../src/runtime/context.js"
import type { AuthConfig } from "../src/types.js"
import { cpuRounds, roundsSummary } from "./loop-rounds.js"
import { BENCH_SECRET, benchCredentialsOptions, benchPasswordLimits } from "./shared.js"

process.env.NODE_ENV = "production"
const authConfig: AuthConfig = {
  secret: BENCH_SECRET,
  trustHost: true,
  rateLimit: benchPasswordLimits(),
  providers: [Credentials(benchCredentialsOptions)],
}
const config = resolvedFor(authConfig)

function headersOf(h: Record<string, string>) {
  return { get: (n: string) => h[n] ?? null }
}
async function main() {
  const base = "http://127.0.0.1:3000"
  const csrfReq: IncomingRequest = {
    method: "GET",
    url: new URL(`${base}/auth/csrf`),
    headers: headersOf({ host: "127.0.0.1:3000" }),
    cookies: parseCookies(null),
    body: undefined,
    headerEntries: () => [],
    clientIp: "127.0.0.1",
  }
  const got = await handleRequest(csrfReq, config)
  const token = (got.response.body as { csrfToken: string }).csrfToken
  const csrfCookie = got.response.cookies?.find((c) => c.name.includes("csrf"))
  if (!csrfCookie) throw new Error("no csrf cookie")
  const cookieHeader = `${csrfCookie.name}=${csrfCookie.value}`
  const hdrs = { host: "127.0.0.1:3000", cookie: cookieHeader, "content-type": "application/x-www-form-urlencoded", origin: base }
  const make = (): IncomingRequest => ({
    method: "POST",
    url: new URL(`${base}/auth/callback/credentials`),
    headers: headersOf(hdrs),
    cookies: parseCookies(cookieHeader),
    body: { csrfToken: token, username: "bench", password: "bench", callbackUrl: `${base}/dashboard` },
    headerEntries: () => Object.entries(hdrs),
    clientIp: "127.0.0.1",
  })
  const one = async () => {
    const h = await handleRequest(make(), config)
    if (h.response.redirect !== `${base}/dashboard` && h.response.status !== 302) throw new Error(`bad ${JSON.stringify(h.response)}`)
  }
  await one()
  const r = await handleRequest(make(), config)
  if (!r.response.cookies?.some((c) => c.name.includes("session-token"))) throw new Error(`no session ${JSON.stringify(r.response)}`)
  const mode = process.env.MODE ?? "cpu"
  const N = Number(process.env.N ?? 10000)
  for (let i = 0; i < 3000; i++) await one()
  if (mode === "alloc") {
    const gc = (globalThis as { gc?: () => void }).gc
    if (!gc) throw new Error("--expose-gc")
    const n = Number(process.env.N ?? 2000)
    const res: number[] = []
    for (let round = 0; round < 3; round++) {
      gc()
      const b = process.memoryUsage().heapUsed
      for (let i = 0; i < n; i++) await one()
      const a = process.memoryUsage().heapUsed
      res.push((a - b) / n)
    }
    console.log(`alloc bytes/sign-in: ${res.map((x) => x.toFixed(0)).join(" ")}`)
    return
  }
  if (mode === "heap") {
    const { Session } = await import("node:inspector/promises")
    const session = new Session()
    session.connect()
    await session.post("HeapProfiler.enable")
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 64,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never)
    for (let i = 0; i < N; i++) await one()
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: unknown }
    const fs = await import("node:fs")
    fs.writeFileSync(process.env.OUT ?? "/tmp/postcpu-prof/heap.heapprofile", JSON.stringify(profile))
    return
  }
  if (mode === "promises") {
    const { promiseHooks } = await import("node:v8")
    let made = 0
    const stop = promiseHooks.onInit(() => {
      made++
    })
    for (let i = 0; i < N; i++) await one()
    stop()
    console.log(`promises/sign-in: ${(made / N).toFixed(1)}`)
    return
  }
  if (mode === "prof") {
    for (let i = 0; i < N; i++) await one()
    return
  }
  const rounds = Number(process.env.ROUNDS ?? 5)
  console.log(`cpu µs/sign-in: ${roundsSummary(await cpuRounds(one, N, rounds))}`)
}
main().catch((e) => {
  console.error(e)
  process.exit(1)
})
