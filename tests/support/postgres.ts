/**
 * A real, throwaway PostgreSQL for tests: a fresh cluster from `initdb` in a temp
 * directory, a server on a free loopback port with its socket in that directory and durability off
 * (`fsync=off`), removed on `stop()`. Nothing under /etc or /var is touched.
 *
 * initdb and postgres refuse to run as root, so as root they run with the uid/gid of the `postgres`
 * user. CI needs `apt-get install -y postgresql` (the binaries under /usr/lib/postgresql/<v>/bin).
 */
import { execFile, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { once } from "node:events"
import { chown, mkdtemp, readFile, readdir, rm } from "node:fs/promises"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { promisify } from "node:util"

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  connectionString: string
  port: number
  /** Fast shutdown (SIGINT), then the data directory is removed. */
  stop(): Promise<void>
}

const run = promisify(execFile)
const ROOT = "/usr/lib/postgresql"
const READY = "ready to accept connections"
const START_TIMEOUT_MS = 10_000
const ATTEMPTS = 5

const live = new Set<ChildProcess>()
let exitHookInstalled = false

/** A port that was free a moment ago (listen(0), then close: racy, so the caller retries). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** The newest installed `/usr/lib/postgresql/<version>/bin`, or a clear error. */
export async function postgresBinDir(): Promise<string> {
  const versions = existsSync(ROOT) ? await readdir(ROOT) : []
  const usable = versions
    .filter((v) => existsSync(join(ROOT, v, "bin", "initdb")) && existsSync(join(ROOT, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a))
  const newest = usable[0]
  if (newest === undefined) {
    throw new Error(
      `PostgreSQL server binaries not found (${ROOT}/<version>/bin/{initdb,postgres}). ` +
        "Install them with `apt-get install -y postgresql`.",
    )
  }
  return join(ROOT, newest, "bin")
}

/** uid/gid to run the server as: the `postgres` user when we are root, ourselves otherwise. */
async function serverIdentity(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const passwd = await readFile("/etc/passwd", "utf8")
  const fields = passwd
    .split("\n")
    .map((line) => line.split(":"))
    .find((f) => f[0] === "postgres")
  if (!fields) throw new Error("Running as root, but there is no `postgres` user to run PostgreSQL as.")
  return { uid: Number(fields[2]), gid: Number(fields[3]) }
}

function startServer(bin: string, dir: string, port: number, identity: { uid: number; gid: number } | undefined) {
  return new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(
      join(bin, "postgres"),
      [
        "-D",
        join(dir, "data"),
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
      ],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"], ...identity },
    )
    let output = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`postgres did not become ready within ${START_TIMEOUT_MS} ms:\n${output}`))
    }, START_TIMEOUT_MS)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(READY)) {
        clearTimeout(timer)
        child.stderr?.off("data", onData)
        child.stdout?.off("data", onData)
        resolve(child)
      }
    }
    child.stderr?.on("data", onData)
    child.stdout?.on("data", onData)
    child.once("error", (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`postgres exited before it was ready (code ${code}, signal ${signal}):\n${output}`))
    })
  })
}

/** Creates a cluster in a temp directory and starts PostgreSQL on a free loopback port. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = await postgresBinDir()
  const identity = await serverIdentity()
  const dir = await mkdtemp(join(tmpdir(), "authchart-pg-"))
  if (identity) await chown(dir, identity.uid, identity.gid)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once("exit", () => {
      for (const child of live) child.kill("SIGKILL")
    })
  }
  try {
    await run(join(bin, "initdb"), ["-D", join(dir, "data"), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"], {
      cwd: dir,
      ...identity,
    })
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw new Error("initdb failed", { cause: err })
  }

  let lastError: unknown
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await freePort()
    let child: ChildProcess
    try {
      child = await startServer(bin, dir, port, identity)
    } catch (err) {
      lastError = err
      continue
    }
    live.add(child)
    child.once("exit", () => live.delete(child))
    return {
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          // Smart shutdown first (waits for clients to leave, so none is told "terminating connection");
          // a fast shutdown after 2 s if a client lingers.
          const gone = once(child, "exit")
          child.kill("SIGTERM")
          const fast = setTimeout(() => child.kill("SIGINT"), 2000)
          await gone
          clearTimeout(fast)
        }
        await rm(dir, { recursive: true, force: true })
      },
    }
  }
  await rm(dir, { recursive: true, force: true })
  throw new Error(`postgres failed to start after ${ATTEMPTS} attempts`, { cause: lastError })
}
