/**
 * The password lockout shared by two app processes (tests/support/multi-app.ts with `RATE_LIMIT=1`:
 * the production defaults, `RedisServerState` on one redis-server): failures on A and B add up to one
 * count per account, and the lockout answers on both, even to the right password.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AppProcess, HttpBrowser, startApp } from "./support/app-process.js"
import { type RedisServer, startRedis } from "./support/redis-server.js"

const AUTH_SECRET = "rate-limit-instances-secret-0123456789abcd"

let redis: RedisServer
let a: AppProcess
let b: AppProcess

beforeAll(async () => {
  redis = await startRedis()
  const env = { AUTH_SECRET, REDIS_URL: redis.url, FLOW_STORE: "cookie", SESSIONS: "jwt", TOTP: "1", RATE_LIMIT: "1", PORT: "0" }
  ;[a, b] = await Promise.all([startApp("tests/support/multi-app.ts", { env }), startApp("tests/support/multi-app.ts", { env })])
}, 30_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await redis?.stop()
})

async function password(base: string, pass: string) {
  const browser = new HttpBrowser([base])
  const csrfToken = await browser.csrf()
  return browser.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: pass } })
}

describe("two instances, one Redis", () => {
  it("3 wrong passwords on A and 2 on B lock the account on both: the right password is refused", async () => {
    for (let i = 0; i < 3; i++) expect((await password(a.base, "wrong")).location).toContain("error=CredentialsSignin")
    for (let i = 0; i < 2; i++) expect((await password(b.base, "wrong")).location).toContain("error=CredentialsSignin")
    expect((await password(a.base, "correct horse")).location).toBe(`${a.base}/auth/signin?error=RateLimited&retryIn=15`)
    expect((await password(b.base, "correct horse")).location).toBe(`${b.base}/auth/signin?error=RateLimited&retryIn=15`)
    expect(`${a.output()}${b.output()}`.match(/auth-error RateLimited: The passwordAccount rate limit/g)).toHaveLength(1)
  })
})
