/**
 * `tsx bench/session-loop.ts <label>=<checkout> <label>=<checkout>`: the JWT session read in process
 * (`handleRequest` on `GET /auth/session` with a valid cookie, no HTTP, no Express) in two checkouts'
 * builds (their `dist/`), loaded side by side in this one process and run in alternating batches (the
 * order reversed every other round), so that a shared machine's load falls on both alike. Prints each
 * side's median CPU µs per read and the median of the per-round ratio B/A. Over HTTP a read costs
 * some 300 µs on a loaded 2-core VM and its A/A spread is several percent; this isolates the runtime's part.
 * LOOP_ROUNDS (16) rounds of LOOP_READS (20,000) reads.
 */
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { BENCH_SECRET, BENCH_USER, SESSION_COOKIE } from "./shared.js"

const ROUNDS = Number(process.env.LOOP_ROUNDS ?? 16)
const READS = Number(process.env.LOOP_READS ?? 20_000)

interface Side {
  readonly label: string
  readonly run: (reads: number) => Promise<void>
  readonly cpu: number[]
}

async function side(label: string, root: string): Promise<Side> {
  const load = (path: string): Promise<any> => import(pathToFileURL(join(resolve(root), "dist", path)).href)
  const [{ handleRequest }, { resolvedFor }, { encode }, { parseCookies }] = await Promise.all([
    load("runtime/auth.js"),
    load("runtime/config.js"),
    load("jwt.js"),
    load("runtime/cookies.js"),
  ])
  const config = resolvedFor({ secret: BENCH_SECRET, trustHost: true, providers: [] })
  const claims = { sub: BENCH_USER.id, name: BENCH_USER.name, email: BENCH_USER.email, picture: null }
  const cookie = `${SESSION_COOKIE}=${await encode({ token: claims, secret: BENCH_SECRET, salt: SESSION_COOKIE })}`
  const headers: Record<string, string> = { host: "127.0.0.1:3000", cookie }
  const request = () => ({
    method: "GET",
    url: new URL("http://127.0.0.1:3000/auth/session"),
    headers: { get: (name: string) => headers[name] ?? null },
    cookies: parseCookies(cookie),
    body: undefined,
    headerEntries: () => Object.entries(headers),
  })
  const run = async (reads: number) => {
    for (let i = 0; i < reads; i++) {
      const { response } = await handleRequest(request(), config)
      if (!response.body) throw new Error(`${label}: the read found no session`)
    }
  }
  return { label, run, cpu: [] }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

async function main(): Promise<void> {
  const specs = process.argv.slice(2).map((arg) => arg.split("=") as [string, string])
  if (specs.length !== 2 || specs.some(([label, root]) => !label || !root))
    throw new Error("usage: session-loop.ts <label>=<checkout> <label>=<checkout>")
  const sides: Side[] = []
  for (const [label, root] of specs) sides.push(await side(label, root))
  for (const s of sides) await s.run(READS) // warm
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
      const before = process.cpuUsage()
      await s.run(READS)
      const used = process.cpuUsage(before)
      s.cpu.push((used.user + used.system) / READS)
    }
  }
  const [a, b] = sides as [Side, Side]
  for (const s of sides)
    console.log(`${s.label.padEnd(12)} median ${median(s.cpu).toFixed(2)} µs per read, min ${Math.min(...s.cpu).toFixed(2)}`)
  console.log(`${b.label}/${a.label} per round, median: ${median(b.cpu.map((x, i) => x / (a.cpu[i] as number))).toFixed(3)}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
