/**
 * Two app processes (tests/support/multi-app.ts) on two loopback ports share one Redis, or one Redis
 * Cluster: flow state in `RedisFlowStore`, database sessions in `RedisAdapter`, the same AUTH_SECRET. A
 * round-robin browser sends every request to the other instance than the one before, so each flow starts
 * on one instance and finishes on the other: OIDC sign-ins against the local oidc-provider and email
 * sign-ins complete, a session made by one instance is read by the other, and sign-out on one is seen by
 * both. tests/multi-instance.test.ts runs these scenarios on one redis-server, tests/cluster-instances.test.ts
 * on a cluster.
 *
 * Each instance computes its URLs from its own host:port (trustHost), so the provider has both
 * instances' redirect URIs registered; the flow keeps the redirect_uri it started with, and the other
 * instance redeems the code with it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AppProcess, HttpBrowser, startApp } from "./support/app-process.js"
import {
  type AuthorizeResult,
  type IdpSession,
  type OidcServer,
  type StartOidcProviderOptions,
  startOidcProvider,
} from "./support/oidc-provider.js"
import { freePort } from "./support/redis-server.js"
import { type SmtpCapture, startSmtp } from "./support/smtp.js"

export const AUTH_SECRET = "multi-instance-secret-0123456789abcdef0123"
export const SESSION = "authjs.session-token"

/** The Redis both instances share, as the scenarios see it. */
export interface SharedRedis {
  /** What the app processes get to reach it: `REDIS_URL`, or `REDIS_CLUSTER`. */
  env: Record<string, string>
  exists(key: string): Promise<number>
  /** Every key matching `pattern` (on every node of a cluster). */
  keys(pattern: string): Promise<string[]>
  stop(): Promise<void>
}

/** What the scenarios (and a file's further tests) run against. */
export interface Instances {
  redis: SharedRedis
  smtp: SmtpCapture
  idp: OidcServer
  apps: AppProcess[]
  bases: string[]
}

async function twoFreePorts(): Promise<[number, number]> {
  const a = await freePort()
  let b = await freePort()
  while (b === a) b = await freePort()
  return [a, b]
}

/** csrf → POST /signin/idp → the provider (login as `account`) → the callback, each on the next instance. */
export async function oidcSignIn(on: Instances, browser: HttpBrowser, account: string, session?: IdpSession) {
  const csrfToken = await browser.csrf()
  const start = await browser.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } })
  expect(start.res.status, start.text).toBe(303)
  const authz = new URL(start.location as string)
  expect(authz.origin).toBe(on.idp.issuer)
  expect(authz.searchParams.get("redirect_uri")).toBe(`${start.base}/auth/callback/idp`)
  const answer = (await on.idp.authorize(authz.href, { account, ...(session ? { session } : {}) })) as Extract<
    AuthorizeResult,
    { kind: "redirect" }
  >
  expect(answer.kind).toBe("redirect")
  expect(new URL(answer.url).origin).toBe(start.base)
  const callback = await browser.send(answer.url)
  expect(callback.index).not.toBe(start.index)
  return { start, callback }
}

/** GET /auth/session on instance `index` with `cookieHeader`. */
export async function sessionAt(on: Instances, index: number, cookieHeader: string) {
  const res = await fetch(`${on.bases[index]}/auth/session`, { headers: { cookie: cookieHeader }, signal: AbortSignal.timeout(10_000) })
  return (await res.json()) as { user: { email: string; name?: string } } | null
}

/**
 * Registers the shared set-up (Redis from `start`, SMTP, the OpenID provider with `idpOptions`, two app
 * processes with `extraEnv`) and the scenarios, under "two app processes sharing <name>". Returns the
 * running set-up, for further tests in the same file (valid once `beforeAll` ran).
 */
export function runMultiInstanceScenarios(
  name: string,
  start: () => Promise<SharedRedis>,
  extraEnv: Record<string, string> = {},
  idpOptions: Omit<StartOidcProviderOptions, "clients"> = {},
) {
  const on = {} as Instances

  beforeAll(async () => {
    ;[on.redis, on.smtp] = await Promise.all([start(), startSmtp()])
    const ports = await twoFreePorts()
    on.idp = await startOidcProvider({
      clients: [
        {
          client_id: "multi-client",
          client_secret: "multi-secret",
          redirect_uris: ports.map((port) => `http://127.0.0.1:${port}/auth/callback/idp`),
          // a sign-out at the provider is told to the first instance, naming the provider session (`sid`)
          backchannel_logout_uri: `http://127.0.0.1:${ports[0]}/auth/backchannel-logout/idp`,
          backchannel_logout_session_required: true,
        },
      ],
      ...idpOptions,
    })
    const env = {
      AUTH_SECRET,
      ...on.redis.env,
      OIDC_ISSUER: on.idp.issuer,
      OIDC_CLIENT_ID: "multi-client",
      OIDC_CLIENT_SECRET: "multi-secret",
      SMTP_URL: on.smtp.url,
      FLOW_STORE: "redis",
      SESSIONS: "database",
      ...extraEnv,
    }
    on.apps = await Promise.all(ports.map((port) => startApp("tests/support/multi-app.ts", { env: { ...env, PORT: String(port) } })))
    on.bases = on.apps.map((app) => app.base)
  }, 40_000)

  afterAll(async () => {
    await Promise.all([...(on.apps ?? []).map((app) => app.stop()), on.idp?.stop(), on.smtp?.stop()])
    await on.redis?.stop()
  }, 20_000)

  describe(`two app processes sharing ${name}`, () => {
    it("the instances are separate processes on separate ports", async () => {
      expect(on.apps).toHaveLength(2)
      expect(on.apps[0]?.pid).not.toBe(on.apps[1]?.pid)
      const health = await Promise.all(
        on.bases.map(async (base) => (await (await fetch(`${base}/__health`)).json()) as { pid: number; redis: boolean }),
      )
      expect(health.map((h) => h.pid)).toEqual(on.apps.map((a) => a.pid))
      expect(health.every((h) => h.redis)).toBe(true)
    })

    it("OIDC sign-in started on one instance completes on the other; both read the database session", async () => {
      for (const first of [0, 1]) {
        const browser = new HttpBrowser(on.bases, first)
        const { start, callback } = await oidcSignIn(on, browser, "alice@example.test")
        expect(callback.res.status, callback.text).toBe(302)
        // the callbackUrl fixed on the starting instance is another origin (port) for this one: its own home
        expect(callback.location).toBe(callback.base)
        expect(start.base).not.toBe(callback.base)
        expect(browser.cookie("authchart.flow.idp")).toBeUndefined()
        const token = browser.cookie(SESSION) as string
        expect(token).toMatch(/^[0-9a-f-]{36}$/)
        expect(await on.redis.exists(`app:session:${token}`)).toBe(1)
        for (const index of [0, 1]) {
          expect((await sessionAt(on, index, `${SESSION}=${token}`))?.user.email).toBe("alice@example.test")
        }
        expect(browser.served).toEqual(first === 0 ? [0, 1, 0] : [1, 0, 1])
      }
      expect(await on.redis.keys("app:flow:*")).toEqual([])
    })

    it("a replayed callback sent to the other instance finds nothing (the flow was taken from Redis)", async () => {
      const browser = new HttpBrowser(on.bases, 0)
      const csrfToken = await browser.csrf()
      const start = await browser.send("/auth/signin/idp", { form: { csrfToken } })
      const flowId = browser.cookie("authchart.flow.idp") as string
      const answer = (await on.idp.authorize(start.location as string)) as Extract<AuthorizeResult, { kind: "redirect" }>
      const done = await browser.send(answer.url)
      expect(done.res.status).toBe(302)
      const attacker = new HttpBrowser(on.bases, done.index === 0 ? 1 : 0)
      const replay = await attacker.send(answer.url, { cookieHeader: `authchart.flow.idp=${flowId}` })
      expect(replay.location).toBe(`${replay.base}/auth/signin?error=FlowStateError`)
      expect(attacker.cookie(SESSION)).toBeUndefined()
    })

    it("concurrent sign-ins of different accounts, every step on the other instance: nobody ends up as someone else", async () => {
      const accounts = ["alice@example.test", "bob@example.test"]
      const runs = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const account = accounts[i % 2] as string
          const browser = new HttpBrowser(on.bases, i % 2)
          await oidcSignIn(on, browser, account)
          const session = await sessionAt(on, browser.nextIndex, `${SESSION}=${browser.cookie(SESSION)}`)
          return { account, email: session?.user.email }
        }),
      )
      expect(runs.filter((r) => r.email !== r.account)).toEqual([])
    })

    it("email sign-in: the link requested on one instance is opened in another browser on the other instance", async () => {
      const requester = new HttpBrowser(on.bases, 1)
      const before = on.smtp.messages.length
      const csrfToken = await requester.csrf()
      const request = await requester.send("/auth/signin/nodemailer", {
        form: { csrfToken, email: "dana@example.test", callbackUrl: "/inbox" },
      })
      expect(request.location).toBe(`${request.base}/auth/verify-request?provider=nodemailer&type=email`)
      const message = await on.smtp.waitForMessage(before + 1)
      const link = new URL(message.links.find((l) => l.includes("/auth/callback/nodemailer")) as string)
      expect(link.origin).toBe(request.base)

      const otherDevice = new HttpBrowser(on.bases, request.index === 0 ? 1 : 0)
      const opened = await otherDevice.send(link.href)
      expect(opened.index).not.toBe(request.index)
      expect(opened.res.status, opened.text).toBe(302)
      const token = otherDevice.cookie(SESSION) as string
      for (const index of [0, 1]) expect((await sessionAt(on, index, `${SESSION}=${token}`))?.user.email).toBe("dana@example.test")

      const again = await new HttpBrowser(on.bases, request.index).send(link.href)
      expect(again.location).toBe(`${again.base}/auth/error?error=Verification`)
    })

    it("sign-out on one instance is seen by the other", async () => {
      const browser = new HttpBrowser(on.bases, 0)
      await oidcSignIn(on, browser, "bob@example.test")
      const token = browser.cookie(SESSION) as string
      const cookieHeader = `${SESSION}=${token}`
      for (const index of [0, 1]) expect((await sessionAt(on, index, cookieHeader))?.user.email).toBe("bob@example.test")

      const csrfToken = await browser.csrf()
      const out = await browser.send("/auth/signout", { form: { csrfToken } })
      expect(out.res.status).toBe(303)
      expect(browser.cookie(SESSION)).toBeUndefined()
      expect(await on.redis.exists(`app:session:${token}`)).toBe(0)
      // the old cookie, replayed against both instances: no session anywhere
      for (const index of [0, 1]) expect(await sessionAt(on, index, cookieHeader)).toBeNull()
      const me = await fetch(`${on.bases[out.index === 0 ? 1 : 0]}/me`, { headers: { cookie: cookieHeader } })
      expect(await me.json()).toBeNull()
    })
  })

  return on
}
