/**
 * `tsx bench/signin-coverage.ts [checkout]`: the functions one warm request runs in the bench app's
 * process, counted by V8's precise coverage (call counts, function granularity): how many distinct
 * functions and how many calls per credentials sign-in POST, per session read and per bare route,
 * grouped by where the functions live. The app (bench/app.ts, NODE_ENV=production, authchart from the
 * checkout's `dist/`) starts with bench/coverage-hook.mjs, which turns coverage on and writes a snapshot
 * on SIGUSR2; each route runs COV_WARM times (3,000) unmeasured, then COV_N times (20) one after the
 * other between two snapshots, and the counts are divided by COV_N. Counting slows the app: read the
 * counts, not its time. COV_FUNCTIONS=<regexp> also lists the functions whose "<group> <name>" matches.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { HERE, freePort, killAll, startApp, stopApp } from "./children.js"

const WARM = Number(process.env.COV_WARM ?? 3000)
const N = Number(process.env.COV_N ?? 20)

interface Coverage {
  url: string
  functions: { functionName: string; ranges: { count: number }[] }[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Where a function lives, short: a node: module, a package, or the file under the checkout. */
function group(url: string): string {
  if (url.startsWith("node:")) return url.replace(/^node:internal\/(\w+).*$/, "node:internal/$1")
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1] ?? url
  const own = /\/(dist|src|bench)\/(.*)$/.exec(url)
  return own ? `${own[1]}/${own[2]}` : url || "(anonymous)"
}

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? ".")
  const out = join(tmpdir(), `signin-coverage-${process.pid}`)
  const app = await startApp("authchart", await freePort(), { COV_OUT: out }, ["--import", join(HERE, "coverage-hook.mjs")], root)
  let taken = 0
  const take = async (): Promise<Coverage[]> => {
    const file = `${out}.${taken++}.json`
    app.child.kill("SIGUSR2")
    for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(50)
    await sleep(100)
    const result = JSON.parse(readFileSync(file, "utf8")) as Coverage[]
    rmSync(file)
    return result
  }
  try {
    const csrf = await fetch(`${app.base}/auth/csrf`)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookie = (csrf.headers.getSetCookie()[0] ?? "").split(";")[0] ?? ""
    const body = new URLSearchParams({ csrfToken, username: "bench", password: "bench", callbackUrl: `${app.base}/dashboard` }).toString()
    const post = async () => {
      const r = await fetch(`${app.base}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body,
        redirect: "manual",
      })
      await r.arrayBuffer()
      return r
    }
    const first = await post()
    const session = first.headers
      .getSetCookie()
      .find((c) => c.includes("session-token"))
      ?.split(";")[0]
    if (first.status !== 302 && first.status !== 303) throw new Error(`sign-in answered ${first.status}`)
    if (!session) throw new Error("the sign-in set no session cookie")
    const read = async () => (await fetch(`${app.base}/auth/session`, { headers: { cookie: session } })).arrayBuffer()
    const bare = async () => (await fetch(`${app.base}/__bare`)).arrayBuffer()
    const routes: [string, () => Promise<unknown>][] = [
      ["credentials sign-in POST", post],
      ["GET /auth/session", read],
      ["GET /__bare", bare],
    ]
    for (const [name, run] of routes) {
      for (let i = 0; i < WARM; i++) await run()
      await take()
      for (let i = 0; i < N; i++) await run()
      const coverage = await take()
      const byGroup = new Map<string, { fns: number; calls: number }>()
      const each: [string, number][] = []
      let fns = 0
      let calls = 0
      for (const script of coverage) {
        for (const fn of script.functions) {
          const count = (fn.ranges[0]?.count ?? 0) / N
          if (count === 0) continue
          const g = group(script.url)
          const entry = byGroup.get(g) ?? { fns: 0, calls: 0 }
          entry.fns++
          entry.calls += count
          each.push([`${g} ${fn.functionName || "(anonymous)"}`, count])
          byGroup.set(g, entry)
          fns++
          calls += count
        }
      }
      console.log(`${name}: ${fns} distinct functions, ${calls.toFixed(1)} calls per request`)
      const rows = [...byGroup].sort((a, b) => b[1].calls - a[1].calls)
      for (const [g, { fns: f, calls: c }] of rows) console.log(`  ${c.toFixed(1).padStart(7)} calls ${String(f).padStart(4)} fns  ${g}`)
      if (process.env.COV_FUNCTIONS) {
        const wanted = new RegExp(process.env.COV_FUNCTIONS)
        for (const [f, c] of each.sort((a, b) => b[1] - a[1])) if (wanted.test(f)) console.log(`    ${c.toFixed(1).padStart(6)}  ${f}`)
      }
    }
  } finally {
    await stopApp(app)
  }
}

main().catch((err) => {
  console.error(err)
  killAll()
  process.exit(1)
})
