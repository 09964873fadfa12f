/**
 * A real, throwaway redis-server for tests: spawned on a free loopback port with no
 * persistence (`--save '' --appendonly no`), ready in ~15 ms, gone when the test stops it (or when the
 * test process exits). Fault injection: `kill()` (SIGKILL, a crash) and `freeze()`/`thaw()`
 * (SIGSTOP/SIGCONT, a stalled server).
 *
 * CI needs `apt-get install -y redis-server` (no service is started; nothing listens on 6379).
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { createClient } from "redis"

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string
  port: number
  /** Graceful shutdown (SIGTERM, or SIGKILL if frozen/stuck); resolves when the process is gone. */
  stop(): Promise<void>
  /** Crash the server (SIGKILL); resolves when the process is gone. */
  kill(): Promise<void>
  /** Stall the server (SIGSTOP): connections stay open, nothing answers. */
  freeze(): void
  /** Resume a frozen server (SIGCONT). */
  thaw(): void
}

const READY = "Ready to accept connections"
const START_TIMEOUT_MS = 5_000
const ATTEMPTS = 5

const live = new Set<ChildProcess>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL")
  })
}

/** A port that was free a moment ago (listen(0), then close: racy, so callers retry). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  await once(child, "exit")
}

function spawnOnce(port: number, extraArgs: readonly string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", ...extraArgs],
      { stdio: ["ignore", "pipe", "pipe"] },
    )
    let output = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`redis-server did not become ready within ${START_TIMEOUT_MS} ms:\n${output}`))
    }, START_TIMEOUT_MS)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(READY)) {
        clearTimeout(timer)
        child.stdout?.off("data", onData)
        child.stderr?.off("data", onData)
        resolve(child)
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(
        err.code === "ENOENT" ? new Error("redis-server is not installed: run `apt-get install -y redis-server`.", { cause: err }) : err,
      )
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`redis-server exited before it was ready (code ${code}, signal ${signal}):\n${output}`))
    })
  })
}

export interface StartRedisOptions {
  /** More `redis-server` arguments, given the port the server will listen on (e.g. cluster mode's). */
  args?: (port: number) => Promise<readonly string[]> | readonly string[]
}

/** Starts a redis-server on a free loopback port; retries when another process grabs the port first. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  installExitHook()
  let lastError: unknown
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await freePort()
    let child: ChildProcess
    try {
      child = await spawnOnce(port, (await options.args?.(port)) ?? [])
    } catch (err) {
      lastError = err
      if (err instanceof Error && err.message.includes("not installed")) throw err
      continue
    }
    live.add(child)
    child.once("exit", () => live.delete(child))
    const signal = async (name: NodeJS.Signals) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(name)
      await exited(child)
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      async stop() {
        child.kill("SIGCONT")
        const gone = exited(child)
        child.kill("SIGTERM")
        const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 2_000).unref())
        if ((await Promise.race([gone, timeout])) === "timeout") await signal("SIGKILL")
      },
      kill: () => signal("SIGKILL"),
      freeze: () => void child.kill("SIGSTOP"),
      thaw: () => void child.kill("SIGCONT"),
    }
  }
  throw new Error(`redis-server failed to start after ${ATTEMPTS} attempts`, { cause: lastError })
}

/**
 * A client configured fail-fast: no offline queue (a command while reconnecting fails at once), a 1 s
 * socket timeout (a stalled server fails in ~1.3 s), pings to keep an idle socket alive, and at most 5
 * reconnection attempts. Its type is inferred from this call: node-redis' client types are costly to
 * relate to one another, so the helpers never compare two of them.
 */
const newClient = (url: string) =>
  createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: 1_000 },
    pingInterval: 300,
    socket: {
      connectTimeout: 1_000,
      socketTimeout: 1_000,
      reconnectStrategy: (retries: number, cause: Error) =>
        retries >= 5 ? new Error(`redis unreachable after ${retries} retries: ${cause.message}`) : Math.min(50 * 2 ** retries, 1_000),
    },
  })

/** A connected node-redis client, as `connectClient` returns it. */
export type TestRedisClient = ReturnType<typeof newClient>

/** A connected fail-fast client ({@link newClient}). Errors go to `errors` instead of crashing the process. Close with `client.destroy()`. */
export async function connectClient(url: string): Promise<TestRedisClient & { errors: Error[] }> {
  const errors: Error[] = []
  const client = newClient(url)
  client.on("error", (err: Error) => errors.push(err))
  await client.connect()
  return Object.assign(client, { errors })
}
