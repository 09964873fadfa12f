/**
 * Runs an app entry file as its own Node process (`node --import tsx <entry>`), the way a deployment
 * runs one instance: environment in, a `ready <port>` line on stdout when it listens, killed at the
 * end. The child's stdout and stderr are kept (`output()`), so a test can assert on what it logged.
 *
 * The child's stdin stays open; an entry that exits when stdin ends (tests/support/multi-app.ts does)
 * dies with the test process even when nobody calls `stop()`. Children still alive at exit get SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const READY = /^ready (\d+)$/m

export interface AppProcess {
  /** The port the app said it listens on (127.0.0.1). */
  port: number
  /** `http://127.0.0.1:<port>` */
  base: string
  pid: number
  child: ChildProcess
  /** Everything the child wrote so far, stdout and stderr interleaved. */
  output(): string
  /** True while the process has not exited. */
  alive(): boolean
  /** SIGTERM, SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>
}

export interface StartAppOptions {
  /** Extra environment (merged over this process' own). */
  env?: Record<string, string | undefined>
  /** How long to wait for `ready <port>`. Default 20 s. */
  timeoutMs?: number
}

const live = new Set<ChildProcess>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL")
  })
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

/** Spawns `node --import tsx <entry>` (entry relative to the repository root, or absolute). */
export async function startApp(entry: string, options: StartAppOptions = {}): Promise<AppProcess> {
  installExitHook()
  const child = spawn(process.execPath, ["--import", "tsx", entry.startsWith("/") ? entry : join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  })
  live.add(child)
  child.once("exit", () => live.delete(child))
  let out = ""
  const keep = (chunk: Buffer) => {
    out += chunk.toString()
    if (out.length > 1_000_000) out = out.slice(-500_000)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)

  const port = await new Promise<number>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 20_000
    const timer = setTimeout(() => {
      cleanup()
      child.kill("SIGKILL")
      reject(new Error(`${entry}: no "ready <port>" within ${timeoutMs} ms:\n${out}`))
    }, timeoutMs)
    const onData = () => {
      const match = READY.exec(out)
      if (!match) return
      cleanup()
      resolve(Number(match[1]))
    }
    const onExit = (code: number | null, signal: string | null) => {
      cleanup()
      reject(new Error(`${entry} exited before it was ready (code ${code}, signal ${signal}):\n${out}`))
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off("data", onData)
      child.off("exit", onExit)
    }
    child.stdout?.on("data", onData)
    child.once("exit", onExit)
  })

  return {
    port,
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    child,
    output: () => out,
    alive: () => running(child),
    async stop() {
      if (!running(child)) return
      const gone = once(child, "exit")
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000)
      await gone
      clearTimeout(timer)
    },
  }
}

/**
 * A scripted browser over real HTTP for app processes: one cookie jar (cookies carry no port, so the
 * instances on 127.0.0.1 share it, as in a browser), and a round-robin over the instances' bases: each
 * request goes to the next instance, whatever URL the previous answer pointed at. `served` records
 * which instance answered each request.
 */
export class HttpBrowser {
  readonly jar = new Map<string, string>()
  readonly served: number[] = []
  private turn: number

  constructor(
    readonly bases: readonly string[],
    first = 0,
    readonly timeoutMs = 10_000,
  ) {
    this.turn = first
  }

  /** The instance the next request goes to. */
  get nextIndex(): number {
    return this.turn % this.bases.length
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name)
  }

  /**
   * Sends `target` (a path, or an absolute URL of any instance: its origin is replaced) to the next
   * instance, with the jar's cookies; applies `Set-Cookie`. Redirects are not followed.
   */
  async send(target: string, options: { form?: Record<string, string>; cookieHeader?: string } = {}) {
    const index = this.nextIndex
    this.turn += 1
    const base = this.bases[index] as string
    const url = new URL(target, base)
    const headers: Record<string, string> = {}
    const cookie = options.cookieHeader ?? [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ")
    if (cookie) headers.cookie = cookie
    let body: string | undefined
    if (options.form) {
      headers["content-type"] = "application/x-www-form-urlencoded"
      body = new URLSearchParams(options.form).toString()
    }
    const res = await fetch(`${base}${url.pathname}${url.search}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    const text = await res.text()
    this.store(res)
    this.served.push(index)
    return { res, text, base, index, location: res.headers.get("location") }
  }

  async csrf(): Promise<string> {
    const { text } = await this.send("/auth/csrf")
    return (JSON.parse(text) as { csrfToken: string }).csrfToken
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(/;\s*/)
      const eq = pair.indexOf("=")
      if (eq <= 0) continue
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      const expired = value === "" || attributes.some((a) => /^max-age=\s*(0|-\d+)$/i.test(a))
      if (expired) this.jar.delete(name)
      else this.jar.set(name, value)
    }
  }
}
