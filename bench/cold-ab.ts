/**
 * `tsx bench/cold-ab.ts <label>=<dist> <label>=<dist>`: a credentials sign-in POST through `handleRequest`
 * of two builds of authchart in one process (each `dist/` as `npm run build` writes it; a checkout's
 * `node_modules` must resolve from it), the two taking turns request by request, each request after a
 * cache eviction (bench/cold.ts) and timed alone by the process' CPU time. A step costs in the server
 * about what it costs run cold (see bench/cold.ts), and a shared machine's load falls on both builds
 * alike when they alternate this finely, so the medians compare two builds to a few per cent where
 * separate runs swing by tens. N (2,000) sign-ins per build after 2,000 unmeasured; RL=0 turns the rate
 * limits off. Prints each build's median, quartiles and mean in µs, and the medians' ratio.
 *
 * Example: `git archive main | tar -x -C /tmp/base && (cd /tmp/base && ln -s $PWD/node_modules && npm run
 * build)`, then `npm run build && tsx bench/cold-ab.ts base=/tmp/base/dist new=dist`.
 */
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { buildsFromArgs, cpuUs, evict, reportMedians } from "./cold.js"
import { BENCH_SECRET, benchCredentialsOptions, benchPasswordLimits } from "./shared.js"

process.env.NODE_ENV = "production"
const N = Number(process.env.N ?? 2000)
const BASE = "http://127.0.0.1:3000"

interface Incoming {
  method: string
  url: URL
  headers: { get(name: string): string | null }
  cookies: unknown
  body: Record<string, string> | undefined
  headerEntries(): [string, string][]
  clientIp: string
}
interface Answer {
  response: { body?: unknown; redirect?: string; status?: number; cookies?: { name: string; value: string }[] }
}
type Handle = (request: Incoming, config: unknown) => Promise<Answer>

/** One build's sign-in: its own `handleRequest`, config and CSRF pair. */
async function build(dist: string): Promise<() => Promise<void>> {
  const at = (path: string) => import(pathToFileURL(resolve(dist, path)).href)
  const [{ handleRequest }, { resolvedFor }, { parseCookies }, credentials] = await Promise.all([
    at("runtime/auth.js") as Promise<{ handleRequest: Handle }>,
    at("runtime/config.js") as Promise<{ resolvedFor(config: object): unknown }>,
    at("runtime/cookies.js") as Promise<{ parseCookies(header: string | null): unknown }>,
    at("providers/credentials.js") as Promise<{ default: (options: object) => object }>,
  ])
  const config = resolvedFor({
    secret: BENCH_SECRET,
    trustHost: true,
    rateLimit: benchPasswordLimits(),
    providers: [credentials.default(benchCredentialsOptions)],
  })
  const headersOf = (h: Record<string, string>) => ({ get: (n: string) => h[n] ?? null })
  const got = await handleRequest(
    {
      method: "GET",
      url: new URL(`${BASE}/auth/csrf`),
      headers: headersOf({ host: "127.0.0.1:3000" }),
      cookies: parseCookies(null),
      body: undefined,
      headerEntries: () => [],
      clientIp: "127.0.0.1",
    },
    config,
  )
  const token = (got.response.body as { csrfToken: string }).csrfToken
  const csrf = got.response.cookies?.find((c) => c.name.includes("csrf"))
  if (!csrf) throw new Error(`${dist}: no CSRF cookie`)
  const cookie = `${csrf.name}=${csrf.value}`
  const headers = { host: "127.0.0.1:3000", cookie, "content-type": "application/x-www-form-urlencoded", origin: BASE }
  return async () => {
    const answer = await handleRequest(
      {
        method: "POST",
        url: new URL(`${BASE}/auth/callback/credentials`),
        headers: headersOf(headers),
        cookies: parseCookies(cookie),
        body: { csrfToken: token, username: "bench", password: "bench", callbackUrl: `${BASE}/dashboard` },
        headerEntries: () => Object.entries(headers),
        clientIp: "127.0.0.1",
      },
      config,
    )
    if (!answer.response.cookies?.some((c) => c.name.includes("session-token"))) throw new Error(`${dist}: no session`)
  }
}

const sides = (await buildsFromArgs("tsx bench/cold-ab.ts <label>=<dist> <label>=<dist>", build)).map(({ label, build }) => ({
  label,
  signIn: build,
  times: [] as number[],
}))
for (let i = 0; i < 2000; i++) for (const side of sides) await side.signIn()
for (let i = 0; i < N; i++) {
  // the order flips every request, so neither build always runs right after the other
  for (const side of i % 2 ? sides : [...sides].reverse()) {
    evict()
    const start = cpuUs()
    await side.signIn()
    side.times.push(cpuUs() - start)
  }
}
reportMedians("credentials POST, cold", sides)
