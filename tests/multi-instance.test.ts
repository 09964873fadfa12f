/**
 * Two app processes sharing one redis-server: the scenarios of tests/multi-instance-scenarios.ts (OIDC
 * and email sign-ins started on one instance and finished on the other, database sessions read by both,
 * sign-out seen by both). tests/cluster-instances.test.ts runs the same scenarios on Redis Cluster.
 *
 * Provider tokens across the two processes: the apps keep them (`session.providerTokens`, a 30 s margin
 * in `RedisServerState`); the provider issues 1-second access tokens at sign-in (so the kept one needs a
 * refresh at once: the processes' clocks cannot be moved) and 1-hour ones at refresh, with rotation.
 * 50 concurrent `getAccessToken` requests split over both processes make exactly one refresh at the
 * provider's token endpoint, and all get its token.
 *
 * Back-channel logout across the processes: alice signs in from two browsers through two provider
 * sessions; she signs out at the provider in one, the provider tells the first instance (a logout token
 * with `sub` and `sid`), and the second instance no longer knows that browser's session, while the
 * other browser's stands.
 */
import { failFastRedisOptions } from "../src/stores/redis.js"
import { createClient } from "redis"
import { describe, expect, it } from "vitest"
import { SESSION, oidcSignIn, runMultiInstanceScenarios, sessionAt } from "./multi-instance-scenarios.js"
import { HttpBrowser } from "./support/app-process.js"
import { startRedis } from "./support/redis-server.js"
import { userinfoSub } from "./support/token-app.js"

const REFRESHED_TTL = 3600

const on = runMultiInstanceScenarios(
  "one Redis",
  async () => {
    const server = await startRedis()
    const raw = createClient(failFastRedisOptions(server.url))
    raw.on("error", () => undefined)
    await raw.connect()
    return {
      env: { REDIS_URL: server.url },
      exists: (key) => raw.exists(key),
      keys: (pattern) => raw.keys(pattern),
      async stop() {
        raw.destroy()
        await server.stop()
      },
    }
  },
  { PROVIDER_TOKENS: "30" },
  { accessTokenTtl: 1, refreshedAccessTokenTtl: REFRESHED_TTL, rotateRefreshTokens: true },
)

describe("provider tokens across two app processes sharing one Redis", () => {
  it("50 concurrent getAccessToken requests over both processes, the kept token expiring: exactly one refresh at the provider", async () => {
    const browser = new HttpBrowser(on.bases)
    const { callback } = await oidcSignIn(on, browser, "alice@example.test")
    expect(callback.res.status, callback.text).toBe(302)
    const cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join("; ")
    const before = on.idp.tokenRequests.grants.refresh_token ?? 0
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch(`${on.bases[i % 2]}/__access-token`, { headers: { cookie }, signal: AbortSignal.timeout(20_000) })
        return { status: res.status, body: (await res.json()) as { token?: string; error?: string } }
      }),
    )
    expect(answers.filter((a) => a.status !== 200)).toEqual([])
    expect((on.idp.tokenRequests.grants.refresh_token ?? 0) - before).toBe(1)
    const tokens = new Set(answers.map((a) => a.body.token))
    expect(tokens.size).toBe(1)
    expect(await userinfoSub(on.idp, [...tokens][0] as string)).toBe("user-alice")
  }, 40_000)
})

describe("back-channel logout across two app processes sharing one Redis", () => {
  it("a sign-out at the provider, told to instance A, ends that browser's session on instance B; her other browser's stands", async () => {
    const [laptop, phone] = [on.idp.session(), on.idp.session()]
    const first = new HttpBrowser(on.bases)
    const second = new HttpBrowser(on.bases)
    expect((await oidcSignIn(on, first, "alice@example.test", laptop)).callback.res.status).toBe(302)
    expect((await oidcSignIn(on, second, "alice@example.test", phone)).callback.res.status).toBe(302)
    const cookieOf = (browser: HttpBrowser) => `${SESSION}=${browser.cookie(SESSION)}`
    expect((await sessionAt(on, 1, cookieOf(first)))?.user.email).toBe("alice@example.test")
    const delivered = on.idp.backchannel.delivered

    expect(new URL(await on.idp.endSession(laptop)).pathname).toBe("/session/end/success")
    expect(on.idp.backchannel.delivered).toBe(delivered + 1)
    expect(await sessionAt(on, 1, cookieOf(first))).toBeNull()
    expect((await sessionAt(on, 1, cookieOf(second)))?.user.email).toBe("alice@example.test")
    expect((await sessionAt(on, 0, cookieOf(second)))?.user.email).toBe("alice@example.test")
  })
})
