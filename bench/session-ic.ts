/**
 * `tsx bench/session-ic.ts [checkout]`: V8's inline-cache misses per `GET /auth/session` of a checkout's
 * build (its `dist/`, default this one), and the functions they happen in. Express gives every request
 * and response a hidden class of its own, so each property name read on them after Express' router is a
 * miss on every request; this shows which reads are the integration's and which Node's or Express'.
 *
 * A child Node runs an Express 5 app (`ExpressAuth` at `/auth`, one credentials provider, X-Powered-By
 * off as in bench/app.ts) under `--log-ic`; this process signs in, reads the session WARM times (3,000),
 * then READS times (500) between two marks the child leaves in the log, and maps each IC event between
 * the marks to the function whose code holds it. Logging makes the child slow: it counts, it does not time.
 * `SESSION_IC_KEYS=1` also lists the property names.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { readFileSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import express from "express"
import { BENCH_SECRET, BENCH_USER, benchCredentialsOptions } from "./shared.js"

const WARM = Number(process.env.WARM ?? 3000)
const READS = Number(process.env.READS ?? 500)

/** The child: the app, and `/__mark/<n>` leaving a LoadIC of `__MARK_<n>` in the log. */
async function child(root: string): Promise<void> {
  const { ExpressAuth } = await import(pathToFileURL(join(root, "dist/integration/express.js")).href)
  const { default: Credentials } = await import(pathToFileURL(join(root, "dist/providers/credentials.js")).href)
  const marks = { __MARK_1: 1, __MARK_2: 2 }
  // called often enough to get a feedback vector (V8 allocates it lazily), so that its load is logged
  const mark1 = () => marks.__MARK_1
  const mark2 = () => marks.__MARK_2
  const app = express()
  app.disable("x-powered-by")
  app.get("/__mark/:n", (req, res) => {
    for (let i = 0; i < 20; i++) req.params.n === "1" ? mark1() : mark2()
    res.end("marked")
  })
  app.use("/auth", ExpressAuth({ secret: BENCH_SECRET, trustHost: true, providers: [Credentials(benchCredentialsOptions)] }))
  const server = app.listen(0, "127.0.0.1", () => {
    const address = server.address()
    process.stdout.write(`port ${typeof address === "object" && address ? address.port : 0}\n`)
  })
  process.on("SIGTERM", () => server.close(() => process.exit(0)))
}

interface Answer {
  readonly status: number
  readonly setCookie: string[]
  readonly body: string
}

function send(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => done({ status: res.statusCode ?? 0, setCookie: res.headers["set-cookie"] ?? [], body: text }))
    })
    req.on("error", fail)
    req.end(body)
  })
}

const cookieOf = (lines: string[], name: string) => lines.find((line) => line.startsWith(`${name}=`))?.split(";")[0] ?? ""

interface CodeRange {
  start: number
  end: number
  readonly name: string
}

/** IC events between the marks, by function (and by function and key), per read. */
function icEvents(log: string): { total: number; byFunction: Map<string, number>; byKey: Map<string, number> } {
  const code: CodeRange[] = []
  const byStart = new Map<number, CodeRange>()
  const byFunction = new Map<string, number>()
  const byKey = new Map<string, number>()
  let on = false
  let total = 0
  const owner = (pc: number) => {
    for (let i = code.length - 1; i >= 0; i--) {
      const range = code[i] as CodeRange
      if (pc >= range.start && pc < range.end) return range.name
    }
    return "?"
  }
  for (const line of log.split("\n")) {
    const f = line.split(",")
    if (f[0] === "code-creation") {
      const range = { start: Number.parseInt(f[4] ?? "", 16), end: 0, name: f.slice(6, -2).join(",") || (f[6] ?? "") }
      range.end = range.start + Number(f[5])
      code.push(range)
      byStart.set(range.start, range)
    } else if (f[0] === "code-move") {
      const range = byStart.get(Number.parseInt(f[1] ?? "", 16))
      if (!range) continue
      byStart.delete(range.start)
      const size = range.end - range.start
      range.start = Number.parseInt(f[2] ?? "", 16)
      range.end = range.start + size
      byStart.set(range.start, range)
    } else if (f[0]?.endsWith("IC")) {
      const key = f[8] ?? ""
      if (key === "__MARK_1" || key === "__MARK_2") {
        on = key === "__MARK_1"
        continue
      }
      if (!on) continue
      const where = owner(Number.parseInt(f[1] ?? "", 16))
        .replace(/^\S*\s/, "")
        .replace(/.*node_modules\//, "")
        .replace(/^file:\/\/.*\/dist\//, "dist/")
      total++
      byFunction.set(`${f[0]} ${where}`, (byFunction.get(`${f[0]} ${where}`) ?? 0) + 1)
      byKey.set(`${f[0]} ${where} .${key}`, (byKey.get(`${f[0]} ${where} .${key}`) ?? 0) + 1)
    }
  }
  return { total, byFunction, byKey }
}

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? ".")
  const logFile = join(tmpdir(), `session-ic-${process.pid}.log`)
  const app = spawn(
    process.execPath,
    ["--log-ic", `--logfile=${logFile}`, "--no-logfile-per-isolate", "--import", "tsx", fileURLToPath(import.meta.url), "--child", root],
    { cwd: root, env: { ...process.env, NODE_ENV: "production" }, stdio: ["ignore", "pipe", "inherit"] },
  )
  const [chunk] = (await once(app.stdout, "data")) as [Buffer]
  const port = Number(/port (\d+)/.exec(chunk.toString())?.[1])
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const csrf = await send(agent, port, "GET", "/auth/csrf", {})
    const csrfToken = (JSON.parse(csrf.body) as { csrfToken: string }).csrfToken
    const form = new URLSearchParams({ csrfToken, username: "bench", password: "bench" }).toString()
    const signIn = await send(
      agent,
      port,
      "POST",
      "/auth/callback/credentials",
      { cookie: cookieOf(csrf.setCookie, "authjs.csrf-token"), "content-type": "application/x-www-form-urlencoded" },
      form,
    )
    const cookie = cookieOf(signIn.setCookie, "authjs.session-token")
    if (!cookie) throw new Error("the sign-in set no session cookie")
    const read = async () => {
      const answer = await send(agent, port, "GET", "/auth/session", { cookie })
      if (answer.status !== 200 || !answer.body.includes(BENCH_USER.name))
        throw new Error(`unexpected read: ${answer.status} ${answer.body}`)
    }
    for (let i = 0; i < WARM; i++) await read()
    await send(agent, port, "GET", "/__mark/1", {})
    for (let i = 0; i < READS; i++) await read()
    await send(agent, port, "GET", "/__mark/2", {})
  } finally {
    agent.destroy()
    app.kill("SIGTERM")
    await once(app, "exit")
  }
  const { total, byFunction, byKey } = icEvents(readFileSync(logFile, "utf8"))
  rmSync(logFile, { force: true })
  console.log(`${root}: ${(total / READS).toFixed(1)} IC events per session read`)
  const rows = process.env.SESSION_IC_KEYS === "1" ? byKey : byFunction
  for (const [where, count] of [...rows].sort((a, b) => b[1] - a[1])) {
    if (count / READS >= 0.05) console.log(`${(count / READS).toFixed(2).padStart(6)}  ${where}`)
  }
}

if (process.argv[2] === "--child") {
  child(resolve(process.argv[3] ?? ".")).catch((err) => {
    console.error(err)
    process.exit(1)
  })
} else {
  main().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}
