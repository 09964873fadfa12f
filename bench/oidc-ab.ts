/**
 * `node --import tsx bench/oidc-ab.ts <checkout A> [<checkout B>]`: the OIDC sign-in's two app requests
 * (start, callback with its token request) of two checkouts in ONE process, alternating in short
 * blocks (A B B A …), each with its own modules, config and provider connections, against one stub
 * provider (bench/oidc-loop.ts'). On a shared, loaded machine two processes run at different moments
 * under different load; blocks of a few hundred sign-ins side by side share it. Prints per side the
 * median CPU µs (`process.cpuUsage`) of the start and of the callback over the blocks, and the median of
 * the paired B/A ratios. BLOCKS (40) blocks of N (300) sign-ins per side, after WARM (3,000) per side.
 * COLD=1 (bench/cold.ts) runs an eviction of the caches before the start and before the callback, so
 * each request is measured as the server runs it after a wake-up (the eviction's own CPU not counted).
 */
import { resolve } from "node:path"
import { COLD, evict } from "./cold.js"
import { BASE, CLIENT_ID, jar, request, startStub } from "./oidc-loop.js"
import { BENCH_SECRET, IDP_PROVIDER_ID } from "./shared.js"

process.env.NODE_ENV = "production"

interface Side {
  readonly name: string
  readonly one: () => Promise<{ start: number; callback: number }>
}

type Handle = (req: ReturnType<typeof request>, config: unknown) => Promise<{ response: Record<string, unknown> }>

async function sideOf(dir: string, issuer: string): Promise<Side> {
  const { handleRequest } = (await import(`${dir}/src/runtime/auth.js`)) as { handleRequest: Handle }
  const { resolvedFor } = (await import(`${dir}/src/runtime/config.js`)) as { resolvedFor: (c: object) => unknown }
  const unlimited = { max: 1e9 }
  const config = resolvedFor({
    secret: BENCH_SECRET,
    trustHost: true,
    rateLimit: { rules: { client: unlimited, oauthClient: unlimited } },
    providers: [{ id: IDP_PROVIDER_ID, name: "Bench IdP", type: "oidc", issuer, clientId: CLIENT_ID, clientSecret: "bench-loop-secret" }],
  })
  type Cookies = Parameters<typeof jar>[0]
  const csrf = await handleRequest(request("GET", `${BASE}/auth/csrf`, ""), config)
  const csrfToken = (csrf.response.body as { csrfToken: string }).csrfToken
  const csrfCookie = jar(csrf.response.cookies as Cookies)
  const callbackUrl = `${BASE}/dashboard`
  const cpu = () => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  const one = async () => {
    if (COLD) evict()
    const c0 = cpu()
    const start = await handleRequest(
      request("POST", `${BASE}/auth/signin/${IDP_PROVIDER_ID}`, csrfCookie, { csrfToken, callbackUrl }),
      config,
    )
    const authz = new URL(String(start.response.redirect ?? ""))
    const back = new URLSearchParams({
      code: authz.searchParams.get("nonce") ?? "",
      state: authz.searchParams.get("state") ?? "",
      iss: issuer,
    })
    const cookie = jar(start.response.cookies as Cookies, csrfCookie)
    const c1 = cpu()
    if (COLD) evict()
    const c1b = cpu()
    const done = await handleRequest(request("GET", `${BASE}/auth/callback/${IDP_PROVIDER_ID}?${back}`, cookie), config)
    const c2 = cpu()
    const cookies = (done.response.cookies ?? []) as { name: string }[]
    if (done.response.redirect !== callbackUrl || !cookies.some((c) => c.name.includes("session-token"))) {
      throw new Error(`${dir}: callback: ${JSON.stringify(done.response).slice(0, 400)}`)
    }
    return { start: c1 - c0, callback: c2 - c1b }
  }
  return { name: dir, one }
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

async function main(): Promise<void> {
  const [a = "/work/main", b = "."] = process.argv.slice(2)
  const issuer = await startStub()
  const sides = [await sideOf(resolve(a), issuer), await sideOf(resolve(b), issuer)] as const
  const N = Number(process.env.N ?? 300)
  const BLOCKS = Number(process.env.BLOCKS ?? 40)
  const WARM = Number(process.env.WARM ?? 3000)
  for (let i = 0; i < WARM; i++) for (const side of sides) await side.one()
  const blocks = sides.map(() => ({ start: [] as number[], callback: [] as number[] }))
  for (let block = 0; block < BLOCKS; block++) {
    // A B, then B A: neither side always runs right after the other
    const order = block % 2 === 0 ? [0, 1] : [1, 0]
    for (const at of order) {
      const side = sides[at]
      const into = blocks[at]
      if (!side || !into) continue
      let start = 0
      let callback = 0
      for (let i = 0; i < N; i++) {
        const spent = await side.one()
        start += spent.start
        callback += spent.callback
      }
      into.start.push(start / N)
      into.callback.push(callback / N)
    }
  }
  const [A, B] = blocks
  if (!A || !B) return
  for (const [i, side] of sides.entries()) {
    const own = blocks[i]
    if (!own) continue
    const sum = own.start.map((s, k) => s + (own.callback[k] ?? 0))
    console.log(
      `${i === 0 ? "A" : "B"} ${side.name}: start ${median(own.start).toFixed(1)} µs, callback ${median(own.callback).toFixed(1)} µs, sign-in ${median(sum).toFixed(1)} µs (medians of ${BLOCKS} blocks of ${N})`,
    )
  }
  const ratio = (key: "start" | "callback") => median(A[key].map((x, k) => (B[key][k] ?? 0) / x))
  const total = median(A.start.map((x, k) => ((B.start[k] ?? 0) + (B.callback[k] ?? 0)) / (x + (A.callback[k] ?? 0))))
  console.log(
    `B/A (median of paired blocks): start ${ratio("start").toFixed(3)}, callback ${ratio("callback").toFixed(3)}, sign-in ${total.toFixed(3)}`,
  )
  process.exit(0)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
