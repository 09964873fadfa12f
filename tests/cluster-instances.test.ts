/**
 * Two app processes on a real Redis Cluster (six redis-server processes, tests/support/redis-cluster.ts):
 * flow state, server state and database sessions all on the cluster, through `createCluster` clients
 * made with `failFastClusterOptions` and handed to the stores as docs/scaling-out.md shows (no `followFailover`
 * call: the stores follow the cluster's failovers themselves). First the scenarios every shared Redis passes
 * (tests/multi-instance-scenarios.ts: OIDC and email sign-ins across instances, sessions and sign-out
 * seen by both); then credentials with a TOTP step, passkeys in Chromium behind a round-robin balancer,
 * and revocation, each across the two instances; last, a failover (tests/support/failover-stream.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { totpCode } from "../src/steps/totp.js"
import { users } from "./fixtures/credentials-with-totp.js"
import { SESSION, runMultiInstanceScenarios, sessionAt } from "./multi-instance-scenarios.js"
import { HttpBrowser } from "./support/app-process.js"
import { type Browser, authenticatorTab, launchBrowser } from "./support/browser.js"
import { type FailoverReport, signInStream } from "./support/failover-stream.js"
import {
  type RedisClusterHandle,
  type TestClusterClient,
  connectCluster,
  keysEverywhere,
  startRedisCluster,
} from "./support/redis-cluster.js"
import { type RoundRobin, startRoundRobin } from "./support/round-robin.js"

let cluster: RedisClusterHandle
let probe: TestClusterClient

const on = runMultiInstanceScenarios(
  "one Redis Cluster",
  async () => {
    cluster = await startRedisCluster({ nodeTimeoutMs: 1_000 })
    probe = await connectCluster(cluster.urls)
    return {
      env: { REDIS_CLUSTER: cluster.urls.join(",") },
      exists: (key) => probe.exists(key),
      keys: (pattern) => keysEverywhere(probe, pattern),
      async stop() {
        probe.destroy()
        await cluster.stop()
      },
    }
  },
  { TOTP: "1", PASSKEY: "1" },
)

const cookieOf = (browser: HttpBrowser) => `${SESSION}=${browser.cookie(SESSION)}`

describe("more sign-ins across two instances on the cluster", () => {
  it("credentials + TOTP: the password on one instance, the code on the other; both read the database session", async () => {
    const browser = new HttpBrowser(on.bases, 0)
    const csrfToken = await browser.csrf()
    const password = await browser.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
    expect(password.res.status).toBe(200)
    expect(password.text).toContain('name="code"')
    const code = totpCode(users.get("ada")?.totpSecret as string)
    const done = await browser.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code } })
    expect(done.index).not.toBe(password.index)
    expect(done.res.status).toBe(303)
    expect(await on.redis.exists(`app:session:${browser.cookie(SESSION)}`)).toBe(1)
    for (const index of [0, 1]) expect((await sessionAt(on, index, cookieOf(browser)))?.user.name).toBe("Ada")
  })

  it("revocation on one instance ends the user's database sessions on both", async () => {
    const laptop = new HttpBrowser(on.bases, 0)
    const phone = new HttpBrowser(on.bases, 1)
    for (const browser of [laptop, phone]) {
      const csrfToken = await browser.csrf()
      const res = await browser.send("/auth/callback/credentials", { form: { csrfToken, username: "bob", password: "battery staple" } })
      expect(res.res.status).toBe(303)
    }
    for (const browser of [laptop, phone])
      for (const index of [0, 1]) expect((await sessionAt(on, index, cookieOf(browser)))?.user.name).toBe("Bob")
    const revoke = await fetch(`${on.bases[0]}/__revoke/u-bob`, { method: "POST", signal: AbortSignal.timeout(5_000) })
    expect(revoke.status).toBe(200)
    for (const browser of [laptop, phone]) for (const index of [0, 1]) expect(await sessionAt(on, index, cookieOf(browser))).toBeNull()
  })

  describe("passkeys in Chromium behind a round-robin balancer", () => {
    let browser: Browser
    let balancer: RoundRobin
    beforeAll(async () => {
      ;[browser, balancer] = await Promise.all([launchBrowser(), startRoundRobin(on.bases)])
    })
    afterAll(async () => {
      await Promise.all([browser?.close(), balancer?.stop()])
    })

    it("register, sign out and sign in with a passkey: every ceremony's options and response served by different instances", async () => {
      const page = await authenticatorTab(browser)
      const base = balancer.base
      const email = "paz@example.test"
      const sessionEmail = async () =>
        ((await (await page.context().request.get(`${base}/auth/session`)).json()) as { user?: { email?: string } } | null)?.user?.email
      await page.goto(`${base}/auth/signin`)
      await page.fill("#input-email-for-passkey-provider", email)
      await page.click("text=Register with Passkey")
      await page.waitForURL(`${base}/`)
      expect(await sessionEmail()).toBe(email)

      await page.goto(`${base}/auth/signout`)
      await page.click("button")
      await page.waitForURL(`${base}/`)
      expect(await sessionEmail()).toBeUndefined()

      const before = balancer.served.length
      await page.goto(`${base}/auth/signin`)
      await page.click("text=Sign in with Passkey")
      await page.waitForURL(`${base}/`)
      expect(new Set(balancer.served.slice(before))).toEqual(new Set([0, 1]))
      const token = (await page.context().cookies(base)).find((c) => c.name === SESSION)?.value
      for (const index of [0, 1]) expect((await sessionAt(on, index, `${SESSION}=${token}`))?.user.email).toBe(email)
      expect(await on.redis.keys("app:flow:*")).toEqual([])
    }, 60_000)
  })
})

describe("failover: the master holding a flow's slot is killed (SIGKILL) during a stream of sign-ins", () => {
  let report: FailoverReport
  beforeAll(async () => {
    report = await signInStream(on, cluster, { workers: 4, settleAfterMs: 2_000, capMs: 25_000 })
    console.log(report.summary)
  }, 60_000)

  it("the master of the given flow's slot died and its replica took over", () => {
    expect(report.promoted.port).not.toBe(report.killed.port)
    expect(cluster.nodes.map((n) => n.port)).toContain(report.promoted.port)
  })

  it("requests in the window fail fast with a documented answer: no hang, no 500, the processes alive", async () => {
    // the session on the dead master could not be read for a while: each read answered null at once
    expect(report.probes.some((p) => p.at > report.killedAt && p.answer === "null")).toBe(true)
    expect(report.undocumented).toEqual([])
    for (const app of on.apps) expect(app.alive()).toBe(true)
    const health = await Promise.all(on.bases.map(async (base) => (await (await fetch(`${base}/__health`)).json()) as { pid: number }))
    expect(health.map((h) => h.pid)).toEqual(on.apps.map((a) => a.pid))
    // logged with their type; the cause is node-redis' ClientOfflineError (no offline queue: rejected at once)
    const logged = on.apps.map((a) => a.output()).join("")
    expect(logged).toMatch(/auth-error SessionTokenError: The session could not be read\. \[cause AdapterError/)
    expect(logged).toMatch(/auth-error (FlowStoreUnavailable|AdapterError): .* \[cause Error: The client is offline\]/)
  })

  it("within seconds, with no app restart, the session is readable again and new sign-ins succeed, and keep succeeding", async () => {
    expect(report.sessionBackAt).not.toBeNull()
    expect(report.recoveredAt).not.toBeNull()
    expect(report.trailingSuccesses).toBeGreaterThanOrEqual(10)
    // the flow started before the kill ends cleanly either way: completed (replicated in time) or refused
    const given = await report.completeGiven()
    console.log(`the given flow, resumed after the failover: ${given}`)
    expect(["completed", "FlowStateError"]).toContain(given)
  })
})
