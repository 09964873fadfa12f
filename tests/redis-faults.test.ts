/**
 * What a sign-in does when the Redis behind `RedisFlowStore` fails, against a real app process
 * (tests/support/multi-app.ts: Express, JWT sessions, flow state in Redis, the documented
 * `failFastRedisOptions` client) and a real redis-server that the test kills, restarts on the same
 * port, and freezes (SIGSTOP):
 *  - down when a flow starts → the error page (error=Configuration) within 2 s, no flow cookie set;
 *  - killed between sign-in and callback → the error page within 2 s, the process keeps serving;
 *  - restarted (a new redis-server on the same port) → new flows succeed, the app is not restarted:
 *    `failFastRedisOptions`' reconnect strategy never gives up, by design;
 *  - frozen → an error within the socket timeout (about 1 s, never beyond the store's 2 s bound).
 * Last, in-process: a client whose reconnect strategy DID give up stays closed even after Redis is
 * back, so every flow fails fast until the app makes a new client (and store). That is why the
 * documented options never give up.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { setTimeout as sleep } from "node:timers/promises"
import { ClientClosedError, createClient } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisFlowStore, failFastRedisOptions } from "../src/stores/redis.js"
import { confirmClient, resumeConfirm, startConfirm } from "./flow-store-conformance.js"
import { ORIGIN } from "./helpers.js"
import { type AppProcess, HttpBrowser, startApp } from "./support/app-process.js"
import { type AuthorizeResult, type OidcServer, startOidcProvider } from "./support/oidc-provider.js"
import { freePort, startRedis } from "./support/redis-server.js"

const AUTH_SECRET = "redis-faults-secret-0123456789abcdef012345"
const FLOW = "authchart.flow.idp"
/** The budget the issue sets for a clear error when Redis fails. */
const CLEAR_ERROR_MS = 2_000

interface Redis {
  port: number
  kill(): Promise<void>
  stop(): Promise<void>
  freeze(): void
  thaw(): void
}

/** A NEW redis-server on a given port (the one a killed server left), same flags as startRedis(). */
async function redisOn(port: number): Promise<Redis> {
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  )
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server on ${port} not ready:\n${output}`)), 5_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server on ${port} exited (${code}):\n${output}`))
    })
  })
  const exitOnDeath = () => child.kill("SIGKILL")
  process.once("exit", exitOnDeath)
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const gone = once(child, "exit")
    child.kill("SIGCONT")
    child.kill(name)
    await gone
    process.off("exit", exitOnDeath)
  }
  return {
    port,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
    freeze: () => void child.kill("SIGSTOP"),
    thaw: () => void child.kill("SIGCONT"),
  }
}

let redis: Redis
let idp: OidcServer
let app: AppProcess

beforeAll(async () => {
  const [first, appPort] = await Promise.all([startRedis(), freePort()])
  redis = first
  idp = await startOidcProvider({
    clients: [
      { client_id: "faults-client", client_secret: "faults-secret", redirect_uris: [`http://127.0.0.1:${appPort}/auth/callback/idp`] },
    ],
  })
  app = await startApp("tests/support/multi-app.ts", {
    env: {
      PORT: String(appPort),
      AUTH_SECRET,
      REDIS_URL: first.url,
      FLOW_STORE: "redis",
      SESSIONS: "jwt",
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: "faults-client",
      OIDC_CLIENT_SECRET: "faults-secret",
    },
  })
}, 30_000)

afterAll(async () => {
  redis?.thaw()
  await Promise.all([app?.stop(), idp?.stop()])
  await redis?.stop()
})

const flowCookies = (res: Response) => res.headers.getSetCookie().filter((line) => line.startsWith(`${FLOW}=`))

/** POST /auth/signin/idp; its wall time. */
async function startFlow(browser: HttpBrowser) {
  const csrfToken = await browser.csrf()
  const started = performance.now()
  const start = await browser.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } })
  return { ...start, ms: performance.now() - started }
}

/** A whole sign-in; null when it completed with a session, else what went wrong. */
async function signIn(): Promise<string | null> {
  const browser = new HttpBrowser([app.base])
  const start = await startFlow(browser)
  if (!start.location?.startsWith(idp.issuer)) return `start → ${start.res.status} ${start.location}`
  const answer = (await idp.authorize(start.location)) as Extract<AuthorizeResult, { kind: "redirect" }>
  const done = await browser.send(answer.url)
  if (done.location !== `${app.base}/dashboard`) return `callback → ${done.res.status} ${done.location}`
  const session = JSON.parse((await browser.send("/auth/session")).text) as { user?: { email?: string } } | null
  return session?.user?.email === "alice@example.test" ? null : `session ${JSON.stringify(session)}`
}

/** Retries whole sign-ins until one completes; the time it took. */
async function recovers(withinMs: number): Promise<number> {
  const started = Date.now()
  let last: string | null = "never tried"
  while (Date.now() - started < withinMs) {
    last = await signIn()
    if (last === null) return Date.now() - started
    await sleep(100)
  }
  throw new Error(`no sign-in completed within ${withinMs} ms; last: ${last}`)
}

async function expectClearErrorPage(browser: HttpBrowser, location: string | null) {
  expect(location).toBe(`${app.base}/auth/error?error=Configuration`)
  const page = await browser.send(location as string)
  expect(page.res.status).toBe(500)
  expect(page.text).toContain("Server error")
}

async function expectServing() {
  expect(app.alive()).toBe(true)
  const health = (await (await fetch(`${app.base}/__health`)).json()) as { pid: number }
  expect(health.pid).toBe(app.pid)
}

const storeErrors = () =>
  app
    .output()
    .split("\n")
    .filter((l) => l.startsWith("auth-error FlowStoreUnavailable")).length

describe("RedisFlowStore when Redis fails, in a running app process", () => {
  it("baseline: a sign-in completes", async () => {
    expect(await signIn()).toBeNull()
  })

  it("Redis down when a flow starts → the error page (Configuration) within 2 s, no flow cookie", async () => {
    await redis.kill()
    const before = storeErrors()
    // the first attempt may still find the dead socket; the next ones meet a reconnecting client
    for (let attempt = 0; attempt < 3; attempt++) {
      const browser = new HttpBrowser([app.base])
      const start = await startFlow(browser)
      expect(start.ms).toBeLessThan(CLEAR_ERROR_MS)
      expect(flowCookies(start.res)).toEqual([])
      expect(browser.cookie(FLOW)).toBeUndefined()
      await expectClearErrorPage(browser, start.location)
    }
    expect(storeErrors() - before).toBe(3)
    await expectServing()
  })

  it("Redis restarted (a new server on the same port) → new flows succeed, same app process", async () => {
    redis = await redisOn(redis.port)
    // the client retries every ≤ 1 s and never gives up: back within about a second
    expect(await recovers(5_000)).toBeLessThan(3_000)
    await expectServing()
  })

  it("Redis killed between sign-in and callback → the error page within 2 s, the flow cookie cleared, the app serves on", async () => {
    const browser = new HttpBrowser([app.base])
    const start = await startFlow(browser)
    expect(browser.cookie(FLOW)).toMatch(/^[\w-]{22}$/)
    const answer = (await idp.authorize(start.location as string)) as Extract<AuthorizeResult, { kind: "redirect" }>
    await redis.kill()
    const started = performance.now()
    const callback = await browser.send(answer.url)
    expect(performance.now() - started).toBeLessThan(CLEAR_ERROR_MS)
    expect(browser.cookie(FLOW)).toBeUndefined()
    expect(browser.cookie("authjs.session-token")).toBeUndefined()
    await expectClearErrorPage(browser, callback.location)
    await expectServing()
    expect(JSON.parse((await browser.send("/auth/session")).text)).toBeNull()

    redis = await redisOn(redis.port)
    expect(await recovers(5_000)).toBeLessThan(3_000)
  })

  it("Redis frozen (SIGSTOP) at the start or at the callback → the error page within the socket timeout; after SIGCONT flows succeed again", async () => {
    redis.freeze()
    try {
      const browser = new HttpBrowser([app.base])
      const start = await startFlow(browser)
      // socket timeout 1 s (failFastRedisOptions); the store's own bound (2 s) is the backstop
      expect(start.ms).toBeLessThan(CLEAR_ERROR_MS + 100)
      expect(flowCookies(start.res)).toEqual([])
      await expectClearErrorPage(browser, start.location)
      await expectServing()
    } finally {
      redis.thaw()
    }
    expect(await recovers(5_000)).toBeLessThan(4_000)

    // frozen between sign-in and callback: the resume fails the same way
    const browser = new HttpBrowser([app.base])
    const start = await startFlow(browser)
    const answer = (await idp.authorize(start.location as string)) as Extract<AuthorizeResult, { kind: "redirect" }>
    redis.freeze()
    try {
      const started = performance.now()
      const callback = await browser.send(answer.url)
      expect(performance.now() - started).toBeLessThan(CLEAR_ERROR_MS + 100)
      expect(browser.cookie(FLOW)).toBeUndefined()
      await expectClearErrorPage(browser, callback.location)
    } finally {
      redis.thaw()
    }
    expect(await recovers(5_000)).toBeLessThan(4_000)
  })
})

describe("a client whose reconnect strategy gave up", () => {
  it("stays closed after Redis returns: flows fail fast until the app makes a new client; failFastRedisOptions never gives up", async () => {
    const server = await startRedis()
    const options = failFastRedisOptions(server.url)
    const quitter = createClient({
      ...options,
      socket: { ...options.socket, reconnectStrategy: (n: number) => (n >= 2 ? new Error("gave up") : 50) },
    })
    quitter.on("error", () => undefined)
    await quitter.connect()
    const { client, log } = confirmClient(RedisFlowStore(quitter))
    await startConfirm(client)

    await server.kill()
    const deadline = Date.now() + 3_000
    while (quitter.isOpen && Date.now() < deadline) await sleep(25)
    expect(quitter.isOpen).toBe(false)
    const revived = await redisOn(server.port)
    try {
      const csrfToken = await client.csrf()
      const started = performance.now()
      const res = await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw" } })
      expect(performance.now() - started).toBeLessThan(200)
      expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
      const error = log.errors.at(-1) as Error & { type?: string; cause?: { err?: unknown } }
      expect(error.type).toBe("FlowStoreUnavailable")
      expect(error.cause?.err).toBeInstanceOf(ClientClosedError)

      // the remedy: a new client (and a store over it); or never give up, as the documented options do
      const fresh = createClient(failFastRedisOptions(server.url))
      fresh.on("error", () => undefined)
      await fresh.connect()
      const again = confirmClient(RedisFlowStore(fresh)).client
      const { csrfToken: token } = await startConfirm(again)
      expect((await resumeConfirm(again, token)).headers.get("location")).toBe(`${ORIGIN}/home`)
      fresh.destroy()
      const strategy = options.socket.reconnectStrategy
      expect([1, 10, 1_000, 1_000_000].map((n) => strategy(n))).toEqual([100, 1_000, 1_000, 1_000])
    } finally {
      await revived.stop()
    }
  })
})
