/**
 * The bench's child processes: the apps (bench/app.ts, one per library, NODE_ENV=production) and the
 * load generators (bench/loadgen.ts), all killed when the runner exits. The app's CPU time comes from its
 * own `process.cpuUsage()` (`GET /__cpu`, µs); /proc is the fallback.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createInterface } from "node:readline"

export const HERE = dirname(fileURLToPath(import.meta.url))
export const ROOT = join(HERE, "..")

export type Side = "authchart" | "authjs"
export const SIDES: readonly Side[] = ["authchart", "authjs"]
export const LABEL: Record<Side, string> = { authchart: "authchart", authjs: "@auth/express" }

export interface App {
  side: Side
  child: ChildProcess
  base: string
  stderr: string[]
  stderrLines: number
}

export const children = new Set<ChildProcess>()

export function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
}
process.on("exit", killAll)
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    killAll()
    process.exit(130)
  })
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address()
      const port = typeof addr === "object" && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

/**
 * Starts bench/app.ts for `side`; `nodeFlags` go to node before the script (the soak passes `--expose-gc`).
 * `root` is the checkout whose bench app runs; this one by default.
 */
export async function startApp(
  side: Side,
  port: number,
  env: Record<string, string> = {},
  nodeFlags: readonly string[] = [],
  root: string = ROOT,
): Promise<App> {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", join(root, "bench", "app.ts"), side, String(port)], {
    cwd: root,
    env: { ...process.env, ...env, NODE_ENV: "production" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  children.add(child)
  const app: App = { side, child, base: `http://127.0.0.1:${port}`, stderr: [], stderrLines: 0 }
  let stderrBytes = 0
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (chunk: string) => {
    app.stderrLines += chunk.split("\n").length - 1
    if (stderrBytes < 8192) {
      app.stderr.push(chunk)
      stderrBytes += chunk.length
    }
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${side}: no "ready" within 30 s\n${app.stderr.join("")}`)), 30_000)
    let out = ""
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      out += chunk
      if (out.includes("ready")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${side}: exited early (${code ?? signal})\n${app.stderr.join("")}`))
    })
  })
  return app
}

export async function stopApp(app: App): Promise<void> {
  const { child } = app
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child)
    return
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000)
  await exited
  clearTimeout(timer)
  children.delete(child)
}

export function vmRss(pid: number | undefined): number | null {
  if (!pid) return null
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return m ? Number(m[1]) * 1024 : null
  } catch {
    return null
  }
}

/** User + system CPU time the child has used, in ms (from /proc/<pid>/stat; null when unavailable). */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15, in clock ticks (100 Hz on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK
  } catch {
    return null
  }
}
const CLK_TCK = 100

export interface LoopDelay {
  p50: number
  p99: number
  max: number
}

/** The child's RSS, and its event-loop delay since the previous call (the child resets it). */
export async function rssOf(app: App): Promise<{ rss: number; vmRss: number | null; loop: LoopDelay }> {
  const res = await fetch(`${app.base}/__rss`)
  const body = (await res.json()) as { rss: number; loop: LoopDelay }
  return { rss: body.rss, vmRss: vmRss(app.child.pid), loop: body.loop }
}

/** The app's CPU time (user + system) and memory, from its own process. */
export async function appUsage(app: App): Promise<{ cpuUs: number; rss: number; heapUsed: number }> {
  const res = await fetch(`${app.base}/__cpu`)
  const { user, system, rss, heapUsed } = (await res.json()) as { user: number; system: number; rss: number; heapUsed: number }
  return { cpuUs: user + system, rss, heapUsed }
}

/**
 * Runs a load-generator job (bench/loadgen.ts) in its own process and resolves with its JSON result.
 * `onLine` sees every earlier stdout line (a job that starts the OpenID provider prints its issuer and
 * waits for a line on stdin: `go()` sends it).
 */
export function runLoadgen<T>(job: object, onLine?: (line: string, go: () => void) => void): Promise<T> {
  const child = spawn(process.execPath, ["--import", "tsx", join(HERE, "loadgen.ts"), JSON.stringify(job)], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  children.add(child)
  const stderr: string[] = []
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => {
    if (stderr.length < 50) stderr.push(chunk)
  })
  let last = ""
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  lines.on("line", (line) => {
    last = line
    onLine?.(line, () => child.stdin?.write("go\n"))
  })
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      children.delete(child)
      if (code !== 0) reject(new Error(`load generator exited with ${code}: ${stderr.join("").slice(0, 2000)}`))
      else {
        try {
          resolve(JSON.parse(last) as T)
        } catch (err) {
          reject(new Error(`load generator printed no result: ${last.slice(0, 200)} ${String(err)}`))
        }
      }
    })
  })
}
