/**
 * Provider-token refresh across instances: two app instances (two resolved configs, so two in-process
 * single flights) share a real redis-server through `RedisServerState`. At expiry 50 concurrent calls
 * split over both cause exactly one refresh at the IdP; an instance that read the expired token just
 * before the other refreshed it takes the new one under the lock instead of refreshing again; a refresh
 * that outlived its lock writes nothing; a lock left by a crashed instance is taken over
 * once it expires; a refresh elsewhere that outlasts `refreshWait` ends in `AccessTokenUnavailable`.
 * tests/multi-instance.test.ts runs the 50-call case across two real app processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessTokenUnavailable, type AuthConfig, getAccessToken, type ServerState, stateKey } from "../src/index.js"
import { stableUserId } from "../src/runtime/sessions/user-id.js"
import { RedisServerState } from "../src/stores/redis.js"
import { AuthClient, SECRET, captureLogger } from "./helpers.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "./support/redis-server.js"
import { ACCESS_TOKEN_TTL, advanceClock, idpProvider, requestOf, signInWithIdp, userinfoSub, usesTokenIdp } from "./support/token-app.js"

const the = usesTokenIdp()
let redis: RedisServer
let clients: TestRedisClient[]
beforeAll(async () => {
  redis = await startRedis()
  clients = await Promise.all([connectClient(redis.url), connectClient(redis.url)])
})
afterAll(async () => {
  for (const client of clients ?? []) client.destroy()
  await redis?.stop()
})

const aliceId = stableUserId("idp", "user-alice")
let run = 0

/** Two instances of one app: same secret and Redis prefix, each its own config object. */
function instances(providerTokens: NonNullable<AuthConfig["session"]>["providerTokens"] = "server") {
  const prefix = `tokens-${++run}:`
  return clients.map(
    (client): AuthConfig => ({
      secret: SECRET,
      logger: captureLogger().logger,
      trustHost: true,
      providers: [idpProvider(the.idp)],
      session: { providerTokens },
      serverState: RedisServerState(client, { prefix }),
    }),
  ) as [AuthConfig, AuthConfig]
}

describe("provider tokens across two instances sharing Redis", () => {
  it("50 concurrent calls over both instances at expiry: exactly one refresh, one token for all", async () => {
    const [a, b] = instances()
    const browser = new AuthClient(a)
    await signInWithIdp(the.idp, browser)
    advanceClock(ACCESS_TOKEN_TTL + 1)
    const before = the.refreshes()
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => getAccessToken(requestOf(browser), "idp", i % 2 === 0 ? a : b)))
    expect(the.refreshes()).toBe(before + 1)
    expect(new Set(tokens).size).toBe(1)
    expect(await userinfoSub(the.idp, tokens[0] as string)).toBe("user-alice")
  })

  it("an instance that read the expired token just before another refreshed it takes the new token, no second refresh", async () => {
    const [a, b] = instances()
    const shared = b.serverState as ServerState
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => (open = resolve))
    b.serverState = { ...shared, lock: async (...args) => gate.then(() => shared.lock(...args)) }
    const browser = new AuthClient(a)
    await signInWithIdp(the.idp, browser)
    advanceClock(ACCESS_TOKEN_TTL + 1)
    const before = the.refreshes()
    const late = getAccessToken(requestOf(browser), "idp", b)
    const token = await getAccessToken(requestOf(browser), "idp", a)
    open()
    expect(await late).toBe(token)
    expect(the.refreshes()).toBe(before + 1)
  })

  it("a refresh that outlived its lock stores nothing (another holder owns the record now): AccessTokenUnavailable", async () => {
    const [a] = instances()
    const shared = a.serverState as ServerState
    const lock = stateKey("ptok-lock", aliceId, "idp")
    // just before the write: the lock expired and another instance took it
    a.serverState = {
      ...shared,
      setIfLocked: async (...args) => {
        await shared.reset(lock)
        await shared.lock(lock, "next-holder", 10_000)
        return shared.setIfLocked(...args)
      },
    }
    const browser = new AuthClient(a)
    await signInWithIdp(the.idp, browser)
    const record = stateKey("ptok", aliceId, "idp")
    const before = await shared.get(record)
    advanceClock(ACCESS_TOKEN_TTL + 1)
    await expect(getAccessToken(requestOf(browser), "idp", a)).rejects.toBeInstanceOf(AccessTokenUnavailable)
    expect(await shared.get(record)).toBe(before)
  })

  it("a lock left by a crashed instance is taken over once it expires", async () => {
    const [a, b] = instances()
    const browser = new AuthClient(a)
    await signInWithIdp(the.idp, browser)
    advanceClock(ACCESS_TOKEN_TTL + 1)
    const lock = stateKey("ptok-lock", aliceId, "idp")
    expect(await b.serverState?.lock(lock, "crashed-instance", 300)).toBe(true)
    const before = the.refreshes()
    const token = await getAccessToken(requestOf(browser), "idp", b)
    expect(the.refreshes()).toBe(before + 1)
    expect(await userinfoSub(the.idp, token as string)).toBe("user-alice")
  })

  it("a refresh elsewhere that outlasts refreshWait: AccessTokenUnavailable, and the IdP was not asked", async () => {
    const [a] = instances({ refreshWait: 200 })
    const browser = new AuthClient(a)
    await signInWithIdp(the.idp, browser)
    advanceClock(ACCESS_TOKEN_TTL + 1)
    await a.serverState?.lock(stateKey("ptok-lock", aliceId, "idp"), "busy-instance", 30_000)
    const before = the.refreshes()
    await expect(getAccessToken(requestOf(browser), "idp", a)).rejects.toBeInstanceOf(AccessTokenUnavailable)
    expect(the.refreshes()).toBe(before)
  })
})
