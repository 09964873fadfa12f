/**
 * Attack class: flow-snapshot replay, for both flow stores (the sealed cookie
 * store and Redis). Every persisted snapshot resumes once: resuming claims (flow id, per-save nonce) in
 * the server-state port. Guarded by `claimEnvelope` (src/runtime/engine/store.ts), called from `runFlow`.
 *
 * - A flow cookie kept after the password step and replayed once the TOTP step failed does not resume:
 *   the attempt cap cannot be reset by replaying an earlier cookie.
 * - The same authorization URL authorised twice (codes C1, C2): after finishing with C1, the consumed
 *   flow cookie sent again with C2 is refused before the provider is asked; no second session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig, FlowStore, ServerState } from "../../src/index.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { cookieFlowStore } from "../../src/runtime/engine/store.js"
import { totpCode } from "../../src/steps/totp.js"
import { RedisFlowStore, RedisServerState } from "../../src/stores/redis.js"
import { appConfig, users } from "../fixtures/credentials-with-totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"
import { type AuthorizeResult, type OidcServer, startOidcProvider } from "../support/oidc-provider.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"

const ADA_SECRET = users.get("ada")?.totpSecret as string
const CREDENTIALS_FLOW = "authchart.flow.credentials"
const IDP_FLOW = "authchart.flow.idp"
const SESSION = "authjs.session-token"
const FLOW_STATE_ERROR = `${ORIGIN}/auth/signin?error=FlowStateError`

interface Stores {
  flowStore: FlowStore
  serverState: ServerState
}

let redisServer: RedisServer
let redis: TestRedisClient
let idp: OidcServer

beforeAll(async () => {
  ;[redisServer, idp] = await Promise.all([
    startRedis(),
    startOidcProvider({
      clients: [{ client_id: "replay-client", client_secret: "replay-secret", redirect_uris: [`${ORIGIN}/auth/callback/idp`] }],
    }),
  ])
  redis = await connectClient(redisServer.url)
})

afterAll(async () => {
  redis?.destroy()
  await Promise.all([redisServer?.stop(), idp?.stop()])
})

const storeKinds: { name: string; make: () => Stores }[] = [
  { name: "sealed cookie store, memory port", make: () => ({ flowStore: cookieFlowStore(), serverState: memoryServerState() }) },
  {
    name: "Redis flow store, Redis port",
    make: () => ({
      flowStore: RedisFlowStore(redis, { prefix: "replay:flow:" }),
      serverState: RedisServerState(redis, { prefix: "replay:state:" }),
    }),
  },
]

describe.each(storeKinds)("flow-snapshot replay ($name)", ({ make }) => {
  it("a flow cookie kept after the password step, replayed after the TOTP step failed, is refused (no session)", async () => {
    const log = captureLogger()
    const config: AuthConfig = { ...appConfig(SECRET), trustHost: true, logger: log.logger, ...make() }
    const client = new AuthClient(config)
    const csrfToken = await client.csrf()
    const password = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
    expect(password.status).toBe(200)
    const kept = client.jar.get(CREDENTIALS_FLOW) as string
    expect(kept).toBeTruthy()

    let last: Response | undefined
    for (let i = 0; i < 5; i++)
      last = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: "000000" } })
    expect(last?.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)

    client.jar.cookies.set(CREDENTIALS_FLOW, kept)
    const replay = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: totpCode(ADA_SECRET) } })
    expect(replay.headers.get("location")).toBe(FLOW_STATE_ERROR)
    expect(client.jar.get(SESSION)).toBeUndefined()
    expect(log.errors.at(-1)?.constructor.name).toBe("FlowStateError")
  })

  it("one authorization URL authorised twice (C1, C2): the flow cookie used with C1 is refused with C2, no second session", async () => {
    const log = captureLogger()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [
        { id: "idp", name: "IdP", type: "oidc", issuer: idp.issuer, clientId: "replay-client", clientSecret: "replay-secret" },
      ] as AuthConfig["providers"],
      ...make(),
    }
    const victim = new AuthClient(config)
    const csrfToken = await victim.csrf()
    const start = await victim.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } })
    const authorizationUrl = start.headers.get("location") as string
    const consumed = victim.jar.get(IDP_FLOW) as string
    const first = (await idp.authorize(authorizationUrl)) as Extract<AuthorizeResult, { kind: "redirect" }>
    const second = (await idp.authorize(authorizationUrl)) as Extract<AuthorizeResult, { kind: "redirect" }>
    const c1 = new URL(first.url)
    const c2 = new URL(second.url)
    expect(c1.searchParams.get("code")).not.toBe(c2.searchParams.get("code"))

    const done = await victim.send(`${c1.pathname}${c1.search}`)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    const tokenRequests = idp.tokenRequests.count

    const attacker = new AuthClient(config)
    attacker.jar.cookies.set(IDP_FLOW, consumed)
    const replay = await attacker.send(`${c2.pathname}${c2.search}`)
    expect(replay.headers.get("location")).toBe(FLOW_STATE_ERROR)
    expect(attacker.jar.get(SESSION)).toBeUndefined()
    expect(idp.tokenRequests.count).toBe(tokenRequests)
    expect(log.errors.at(-1)?.constructor.name).toBe("FlowStateError")
  })
})
