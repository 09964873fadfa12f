/**
 * Attack classes: recovery-code guessing, replay across instances, and a voided set. Recovery codes
 * answer the TOTP step (`recoveryCodeStep`), so guesses share the step's cap per account (5 per 15
 * minutes, counted in the server-state port: neither a new sign-in nor another instance starts it again)
 * and the `stepClient` rule per client (30 per minute, across accounts). A code spent on instance A is
 * refused on instance B, and a new set issued on A voids the old one on B. Each scenario runs on the
 * memory port (one instance) and on `RedisServerState` over one redis-server and over a Redis Cluster,
 * with two configs (two instances) sharing the port.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AuthConfig, credentialsFlow, extendFlow } from "../../src/index.js"
import Credentials from "../../src/providers/credentials.js"
import type { ServerState } from "../../src/runtime/limits/server-state.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { issueRecoveryCodes, recoveryCodeStep, recoveryCodesLeft } from "../../src/steps/recovery-codes.js"
import { totpStep } from "../../src/steps/totp.js"
import { RedisServerState } from "../../src/stores/redis.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"
import { type RedisClusterHandle, type TestClusterClient, connectCluster, startRedisCluster } from "../support/redis-cluster.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"

const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const PASSWORD = "correct horse battery"
const ACCESS_DENIED = `${ORIGIN}/auth/error?error=AccessDenied`

let redis: RedisServer
let redisClient: TestRedisClient
let cluster: RedisClusterHandle
let clusterClient: TestClusterClient

beforeAll(async () => {
  ;[redis, cluster] = await Promise.all([startRedis(), startRedisCluster()])
  ;[redisClient, clusterClient] = await Promise.all([connectClient(redis.url), connectCluster(cluster.urls)])
}, 60_000)

afterAll(async () => {
  redisClient?.destroy()
  clusterClient?.destroy()
  await Promise.all([redis?.stop(), cluster?.stop()])
}, 20_000)

/** Two instances: two configs over one port (the memory port is one process's, so there both are one). */
const ports: [string, () => [ServerState, ServerState]][] = [
  [
    "the memory port",
    () => {
      const port = memoryServerState()
      return [port, port]
    },
  ],
  [
    "Redis (one node)",
    () => {
      const prefix = `recovery:${randomUUID()}:`
      return [RedisServerState(redisClient, { prefix }), RedisServerState(redisClient, { prefix })]
    },
  ],
  [
    "Redis Cluster",
    () => {
      const prefix = `recovery:${randomUUID()}:`
      return [RedisServerState(clusterClient, { prefix }), RedisServerState(clusterClient, { prefix })]
    },
  ],
]

/** An instance: every user `name` with the one password and TOTP, recovery codes offered at the TOTP step. */
function instance(serverState: ServerState, extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    serverState,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: ({ username, password }) => (password === PASSWORD ? { id: String(username), name: String(username) } : null),
      }),
    ],
    flows: [extendFlow(credentialsFlow, [recoveryCodeStep(totpStep({ secretFor: () => TOTP_SECRET }))])],
    ...extra,
  }
  return { config, log }
}

/** A browser entering `user`'s password on `config` (it rests on the TOTP page); `clientIp` is its address. */
async function password(config: AuthConfig, user: string, clientIp?: string) {
  const client = new AuthClient(config)
  const csrfToken = await client.csrf()
  const page = await client.send("/auth/callback/credentials", { form: { csrfToken, username: user, password: PASSWORD }, clientIp })
  expect(page.status).toBe(200)
  return {
    client,
    recovery: (recoveryCode: string) =>
      client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: "", recoveryCode }, clientIp }),
  }
}

const someone = () => `user-${randomUUID().slice(0, 8)}`
const signedIn = (client: AuthClient) => client.jar.get("authjs.session-token") !== undefined

describe.each(ports)("recovery codes on %s", (_name, both) => {
  it("guessing is bounded per account: 5 wrong codes over two sign-ins and both instances, then the right code is refused", async () => {
    const [portA, portB] = both()
    const a = instance(portA)
    const b = instance(portB)
    const user = someone()
    const [code] = await issueRecoveryCodes(a.config, user)
    const first = await password(a.config, user)
    for (let i = 0; i < 3; i++) expect((await first.recovery(`0000${i}-00000`)).status).toBe(200)
    const second = await password(b.config, user)
    expect((await second.recovery("00003-00000")).status).toBe(200)
    expect((await second.recovery("00004-00000")).headers.get("location")).toBe(ACCESS_DENIED)

    const third = await password(a.config, user)
    const refused = await third.recovery(code as string)
    expect(refused.headers.get("location")).toBe(ACCESS_DENIED)
    expect(signedIn(third.client)).toBe(false)
    expect(a.log.errors.at(-1)?.message).toBe("The totp step refused attempt 6 (at most 5).")
    expect(await recoveryCodesLeft(b.config, user)).toBe(10)
  })

  it("a code spent on instance A is refused on instance B", async () => {
    const [portA, portB] = both()
    const a = instance(portA)
    const b = instance(portB)
    const user = someone()
    const [code] = await issueRecoveryCodes(a.config, user)
    const onA = await password(a.config, user)
    expect((await onA.recovery(code as string)).headers.get("location")).toBe(ORIGIN)
    expect(signedIn(onA.client)).toBe(true)

    const onB = await password(b.config, user)
    const replay = await onB.recovery(code as string)
    expect(replay.status).toBe(200)
    expect(await replay.text()).toContain("That recovery code is not valid or was already used.")
    expect(signedIn(onB.client)).toBe(false)
    expect(await recoveryCodesLeft(b.config, user)).toBe(9)
  })

  it("the same code sent to both instances at once signs in exactly once", async () => {
    const [portA, portB] = both()
    const a = instance(portA)
    const b = instance(portB)
    const user = someone()
    const [code] = await issueRecoveryCodes(a.config, user)
    const [onA, onB] = await Promise.all([password(a.config, user), password(b.config, user)])
    await Promise.all([onA.recovery(code as string), onB.recovery(code as string)])
    expect([signedIn(onA.client), signedIn(onB.client)].filter(Boolean)).toHaveLength(1)
  })

  it("new codes issued on A void the old set on B", async () => {
    const [portA, portB] = both()
    const a = instance(portA)
    const b = instance(portB)
    const user = someone()
    const old = await issueRecoveryCodes(b.config, user)
    const fresh = await issueRecoveryCodes(a.config, user)
    const onB = await password(b.config, user)
    expect((await onB.recovery(old[0] as string)).status).toBe(200)
    expect(signedIn(onB.client)).toBe(false)
    expect((await onB.recovery(fresh[0] as string)).headers.get("location")).toBe(ORIGIN)
  })
})

describe("recovery-code guessing from one client across many accounts", () => {
  it("stepClient stops the client after 30 answers a minute, whatever the accounts; another client is not affected", async () => {
    const { config } = instance(memoryServerState(), { rateLimit: { enabled: true } })
    const attacker = "203.0.113.7"
    let answers = 0
    let refusedAt: Response | undefined
    // 4 guesses per account stay under each account's cap of 5; the client's count is what stops it
    for (let n = 0; n < 10 && !refusedAt; n++) {
      const { recovery } = await password(config, someone(), attacker)
      for (let i = 0; i < 4; i++) {
        const res = await recovery(`0000${i}-0000${n}`)
        if (res.status !== 200) {
          refusedAt = res
          break
        }
        answers++
      }
    }
    expect(answers).toBe(30)
    const location = new URL(refusedAt?.headers.get("location") ?? "")
    expect(location.searchParams.get("error")).toBe("RateLimited")
    expect(refusedAt?.headers.get("ratelimit-policy")).toBe('"stepClient";q=30;w=60')

    // the owner of an account, from their own address, still gets in with a code
    const owner = someone()
    const [code] = await issueRecoveryCodes(config, owner)
    const own = await password(config, owner, "198.51.100.4")
    expect((await own.recovery(code as string)).headers.get("location")).toBe(ORIGIN)
  })
})
