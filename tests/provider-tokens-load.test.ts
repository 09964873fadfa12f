/**
 * Exactly one refresh under load (issue 38). The real oidc-provider rotates refresh tokens with reuse
 * detection (a rotated refresh token used again is refused and revokes the whole grant) and its token
 * endpoint is slow: it answers a second after the refresh lock's first lifetime has run out, so only a
 * lock its holder keeps renewing holds the others back. The sign-in's access token lives 1 second (the
 * app processes' clocks cannot be moved) and the refreshed one an hour.
 *
 * While two busy loops keep both cores busy, 100 concurrent `getAccessToken` requests go to app
 * processes (tests/support/multi-app.ts): one process on the in-memory server state, two processes
 * sharing one redis-server, two processes sharing a Redis Cluster (its client made the way the README
 * shows). Each time: exactly one refresh request reaches the provider, every caller gets the refreshed
 * token, the provider still accepts it (a second use of the old refresh token would have revoked the
 * grant with it), and the session carries no `RefreshTokenError`: the user stays signed in.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REFRESH_LOCK_MS } from "../src/runtime/sessions/tokens/access-token.js"
import { type AppProcess, HttpBrowser, startApp } from "./support/app-process.js"
import { type OidcServer, startOidcProvider } from "./support/oidc-provider.js"
import { type RedisClusterHandle, startRedisCluster } from "./support/redis-cluster.js"
import { type RedisServer, freePort, startRedis } from "./support/redis-server.js"
import { userinfoSub } from "./support/token-app.js"

const SECRET = "token-load-secret-0123456789abcdef0123456789"
const CLIENT = { client_id: "load-client", client_secret: "load-secret-0123456789" }
const CALLS = 100
/** The token endpoint answers this long after a request: longer than the lock's first lifetime. */
const TOKEN_DELAY_MS = REFRESH_LOCK_MS + 1_000

let idp: OidcServer
let redis: RedisServer
let cluster: RedisClusterHandle
const ports: number[] = []

beforeAll(async () => {
  while (ports.length < 5) {
    const port = await freePort()
    if (!ports.includes(port)) ports.push(port)
  }
  ;[redis, cluster] = await Promise.all([startRedis(), startRedisCluster()])
  idp = await startOidcProvider({
    clients: [{ ...CLIENT, redirect_uris: ports.map((port) => `http://127.0.0.1:${port}/auth/callback/idp`) }],
    accessTokenTtl: 1,
    refreshedAccessTokenTtl: 3600,
    rotateRefreshTokens: true,
  })
}, 40_000)

afterAll(async () => {
  await idp?.stop()
  await Promise.all([redis?.stop(), cluster?.stop()])
}, 20_000)

/** App processes on `count` of the reserved ports, with `env`; stopped by the returned function. */
async function apps(count: number, env: Record<string, string>): Promise<AppProcess[]> {
  const mine = ports.splice(0, count)
  return Promise.all(
    mine.map((port) =>
      startApp("tests/support/multi-app.ts", {
        env: {
          AUTH_SECRET: SECRET,
          PORT: String(port),
          OIDC_ISSUER: idp.issuer,
          OIDC_CLIENT_ID: CLIENT.client_id,
          OIDC_CLIENT_SECRET: CLIENT.client_secret,
          PROVIDER_TOKENS: "30",
          ...env,
        },
      }),
    ),
  )
}

/** Signs alice in through the instances (round robin) and answers the browser's cookie header. */
async function signIn(bases: readonly string[]): Promise<string> {
  const browser = new HttpBrowser(bases)
  const csrfToken = await browser.csrf()
  const start = await browser.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } })
  expect(start.res.status, start.text).toBe(303)
  const answer = await idp.authorize(start.location as string, { account: "alice@example.test" })
  if (answer.kind !== "redirect") throw new Error("expected a redirect back from the IdP")
  const callback = await browser.send(answer.url)
  expect(callback.res.status, callback.text).toBe(302)
  return [...browser.jar].map(([name, value]) => `${name}=${value}`).join("; ")
}

/** One busy loop per core, until the returned function stops them. */
function busyLoops(): () => Promise<void> {
  const loops: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
  return async () => {
    await Promise.all(
      loops.map(async (loop) => {
        if (loop.exitCode !== null || loop.signalCode !== null) return
        const gone = once(loop, "exit")
        loop.kill("SIGKILL")
        await gone
      }),
    )
  }
}

/** The scenario: sign in, then 100 concurrent calls over `instances` under load, and what they got. */
async function burst(instances: AppProcess[]) {
  const bases = instances.map((app) => app.base)
  const cookie = await signIn(bases)
  const before = idp.tokenRequests.grants.refresh_token ?? 0
  idp.setTokenDelay(TOKEN_DELAY_MS)
  const stopLoops = busyLoops()
  const started = performance.now()
  try {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const res = await fetch(`${bases[i % bases.length]}/__access-token`, { headers: { cookie }, signal: AbortSignal.timeout(30_000) })
        return { status: res.status, body: (await res.json()) as { token?: string; error?: string } }
      }),
    )
    const tookMs = performance.now() - started
    return { answers, tookMs, refreshes: (idp.tokenRequests.grants.refresh_token ?? 0) - before, cookie, bases }
  } finally {
    idp.setTokenDelay(0)
    await stopLoops()
  }
}

/** The session as instance `base` reads it. */
async function sessionAt(base: string, cookie: string) {
  const res = await fetch(`${base}/auth/session`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })
  return (await res.json()) as { user?: { email?: string }; error?: string } | null
}

async function expectExactlyOnce(instances: AppProcess[]) {
  try {
    const { answers, tookMs, refreshes, cookie, bases } = await burst(instances)
    expect(answers.filter((a) => a.status !== 200)).toEqual([])
    expect(refreshes).toBe(1)
    const tokens = new Set(answers.map((a) => a.body.token))
    expect(tokens.size).toBe(1)
    // the slow endpoint really outlasted the lock's first lifetime
    expect(tookMs).toBeGreaterThan(TOKEN_DELAY_MS)
    // the grant stands: a reused refresh token would have revoked it, and this access token with it
    expect(await userinfoSub(idp, [...tokens][0] as string)).toBe("user-alice")
    for (const base of bases) {
      const session = await sessionAt(base, cookie)
      expect(session?.user?.email).toBe("alice@example.test")
      expect(session).not.toHaveProperty("error")
    }
    // and the refreshed token is what the instances keep answering, with no further refresh
    const after = idp.tokenRequests.grants.refresh_token
    for (const base of bases) {
      const again = await fetch(`${base}/__access-token`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })
      expect(((await again.json()) as { token?: string }).token).toBe([...tokens][0])
    }
    expect(idp.tokenRequests.grants.refresh_token).toBe(after)
  } finally {
    await Promise.all(instances.map((app) => app.stop()))
  }
}

describe("getAccessToken under load, a token endpoint slower than the refresh lock's first lifetime", () => {
  it("one process on the in-memory server state: 100 concurrent calls, exactly one refresh", async () => {
    await expectExactlyOnce(await apps(1, { REDIS_URL: redis.url, SERVER_STATE: "memory", FLOW_STORE: "cookie", SESSIONS: "jwt" }))
  }, 60_000)

  it("two processes sharing one Redis: 100 concurrent calls over both, exactly one refresh", async () => {
    await expectExactlyOnce(await apps(2, { REDIS_URL: redis.url }))
  }, 60_000)

  it("two processes sharing a Redis Cluster: 100 concurrent calls over both, exactly one refresh", async () => {
    await expectExactlyOnce(await apps(2, { REDIS_CLUSTER: cluster.urls.join(",") }))
  }, 60_000)
})
