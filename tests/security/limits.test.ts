/**
 * Attack class: sidestepping the abuse limits, or turning them against a user (docs/security.md, "Limits"). The
 * per-account limits count the identifier the flow itself resolves (the provider's account field, the
 * address it mails, both normalised), so a decoy field, a query-string address, a case or Unicode
 * variant, another spelling of the same IPv6 /64 or a forged `X-Forwarded-For` buys no extra guess and
 * no extra mail. Password failures lock the (account, client) pair: a stranger failing from other
 * clients throttles only those clients, never the owner signing in from a clean one. Each scenario runs
 * on the memory port, on `RedisServerState` over one redis-server and over a Redis Cluster.
 */
import { randomUUID } from "node:crypto"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { ExpressAuth } from "../../src/integration/express.js"
import Credentials from "../../src/providers/credentials.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import type { ServerState } from "../../src/runtime/limits/server-state.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { RedisServerState } from "../../src/stores/redis.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"
import { servesApps } from "../support/express-apps.js"
import { type RedisClusterHandle, type TestClusterClient, connectCluster, startRedisCluster } from "../support/redis-cluster.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"
import { type SmtpCapture, startSmtp } from "../support/smtp.js"

const PASSWORD = "correct horse battery"

let smtp: SmtpCapture
let redis: RedisServer
let redisClient: TestRedisClient
let cluster: RedisClusterHandle
let clusterClient: TestClusterClient

beforeAll(async () => {
  ;[smtp, redis, cluster] = await Promise.all([startSmtp(), startRedis(), startRedisCluster()])
  ;[redisClient, clusterClient] = await Promise.all([connectClient(redis.url), connectCluster(cluster.urls)])
}, 60_000)

afterAll(async () => {
  redisClient?.destroy()
  clusterClient?.destroy()
  await Promise.all([smtp?.stop(), redis?.stop(), cluster?.stop()])
}, 20_000)

const ports: [string, () => ServerState][] = [
  ["the memory port", () => memoryServerState()],
  ["Redis (one node)", () => RedisServerState(redisClient, { prefix: `limits:${randomUUID()}:` })],
  ["Redis Cluster", () => RedisServerState(clusterClient, { prefix: `limits:${randomUUID()}:` })],
]

const serve = servesApps()
const refusedTo = (res: Response) => new URL(res.headers.get("location") ?? "").searchParams.get("error")

/** A fresh account name per test (the ports are shared by the file). */
const someone = () => `victim-${randomUUID().slice(0, 8)}`

/**
 * An app whose credentials provider names the account by `username` (its only non-password field), and
 * whose `authorize` looks it up as many databases do: case-insensitively, Unicode NFKC.
 */
function passwordConfig(serverState: ServerState, victim: string) {
  const tried: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: captureLogger().logger,
    serverState,
    rateLimit: { enabled: true },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: async (c) => {
          const name = String(c.username).normalize("NFKC").trim().toLowerCase()
          tried.push(name)
          return name === victim && c.password === PASSWORD ? { id: victim, name: victim } : null
        },
      }),
    ],
  }
  return { config, tried }
}

/** Posts the credentials form with exactly `fields` (repeats kept), from `ip`, to the callback (plus `query`). */
async function postFields(client: AuthClient, fields: [string, string][], ip: string, query = "") {
  const csrfToken = await client.csrf()
  const body = new URLSearchParams([["csrfToken", csrfToken], ...fields]).toString()
  return client.send(`/auth/callback/credentials${query}`, {
    body,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    clientIp: ip,
  })
}

describe.each(ports)("abuse limits on %s", (_name, port) => {
  describe("the password limit counts the account authorize looks up", () => {
    /** Five wrong guesses at `victim` spelled by `guess(i)`, then the right password in plain form: refused, authorize not called. */
    async function holds(guess: (victim: string, i: number) => Promise<Response>, client: AuthClient, tried: string[], victim: string) {
      for (let i = 0; i < 5; i++) expect(refusedTo(await guess(victim, i))).toBe("CredentialsSignin")
      const before = tried.length
      const right = await postFields(
        client,
        [
          ["username", victim],
          ["password", PASSWORD],
        ],
        "203.0.113.50",
      )
      expect(refusedTo(right)).toBe("RateLimited")
      expect(right.headers.get("ratelimit-policy")).toBe('"passwordAccount";q=5;w=900')
      expect(tried).toHaveLength(before)
      expect(client.jar.get("authjs.session-token")).toBeUndefined()
    }

    it("a decoy email field in the body beside the username does not move the count off the username", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      const decoy = (v: string, i: number) =>
        postFields(
          client,
          [
            ["email", `decoy-${i}@example.test`],
            ["username", v],
            ["password", "wrong"],
          ],
          "203.0.113.50",
        )
      await holds(decoy, client, tried, victim)
    })

    it("decoys in the query string are not read: the body's username is counted", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      const decoy = (v: string, i: number) =>
        postFields(
          client,
          [
            ["username", v],
            ["password", "wrong"],
          ],
          "203.0.113.50",
          `?username=decoy-${i}&email=decoy-${i}%40example.test`,
        )
      await holds(decoy, client, tried, victim)
    })

    it("a duplicated username field: the value the flow reads is the one counted", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      const duplicated = (v: string, i: number) =>
        postFields(
          client,
          [
            ["username", `decoy-${i}`],
            ["username", v],
            ["password", "wrong"],
          ],
          "203.0.113.50",
        )
      await holds(duplicated, client, tried, victim)
    })

    it("the username as a JSON array (which String() turns into the name) is refused before authorize", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      for (let i = 0; i < 8; i++) {
        const csrfToken = await client.csrf()
        const res = await client.send("/auth/callback/credentials", {
          json: { csrfToken, email: `decoy-${i}@example.test`, username: [victim], password: "wrong" },
          clientIp: "203.0.113.50",
        })
        expect(refusedTo(res)).toBe("CredentialsSignin")
      }
      expect(tried).toEqual([])
    })

    it("case and Unicode variants of the username (upper case, full-width, padded) count as the one account", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      const fullWidth = (s: string) =>
        [...s].map((ch) => (/[a-z0-9]/.test(ch) ? String.fromCodePoint((ch.codePointAt(0) ?? 0) + 0xfee0) : ch)).join("")
      const spellings = (v: string) => [v.toUpperCase(), fullWidth(v), ` ${v}\t`, fullWidth(v.toUpperCase()), v]
      const variant = (v: string, i: number) =>
        postFields(
          client,
          [
            ["username", spellings(v)[i] as string],
            ["password", "wrong"],
          ],
          "203.0.113.50",
        )
      await holds(variant, client, tried, victim)
      // each reached authorize as the one account
      expect(new Set(tried)).toEqual(new Set([victim]))
    })

    it("IPv6 spellings within one /64 are one client: its lockout holds whichever it uses", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const client = new AuthClient(config)
      const spellings = [
        "2001:db8:1:2::1",
        "2001:0DB8:0001:0002:0000:0000:0000:0002",
        "[2001:db8:1:2:ffff::3]",
        "2001:db8:1:2:a:b:c:d%eth0",
        "2001:db8:1:2::",
      ]
      for (const ip of spellings)
        expect(
          refusedTo(
            await postFields(
              client,
              [
                ["username", victim],
                ["password", "wrong"],
              ],
              ip,
            ),
          ),
        ).toBe("CredentialsSignin")
      const sixth = await postFields(
        client,
        [
          ["username", victim],
          ["password", PASSWORD],
        ],
        "2001:db8:1:2:1234:5678:9abc:def0",
      )
      expect(refusedTo(sixth)).toBe("RateLimited")
      expect(tried).toHaveLength(5)
      // the next /64 is another client
      expect(
        (
          await postFields(
            client,
            [
              ["username", victim],
              ["password", PASSWORD],
            ],
            "2001:db8:1:3::1",
          )
        ).headers.get("location"),
      ).toBe(ORIGIN)
    })

    it("X-Forwarded-For rotation behind Express with trust proxy off: one client, its lockout holds", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const app = express()
      app.use("/auth", ExpressAuth(config))
      const listening = await serve(app)
      const csrf = await listening.send("/auth/csrf")
      const cookie = csrf.setCookies.map((line) => line.split(";")[0]).join("; ")
      const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
      const attempt = (password: string, i: number) =>
        listening.send("/auth/callback/credentials", {
          headers: { cookie, "x-forwarded-for": `198.51.100.${i + 1}` },
          form: { csrfToken, username: victim, password },
        })
      for (let i = 0; i < 5; i++) expect((await attempt("wrong", i)).location).toContain("error=CredentialsSignin")
      const right = await attempt(PASSWORD, 99)
      expect(right.location).toContain("error=RateLimited")
      expect(tried).toHaveLength(5)
    })
  })

  describe("lockout a stranger cannot aim", () => {
    it("a stranger failing from four clients locks those clients; the owner's right password from a clean client signs in", async () => {
      const victim = someone()
      const { config, tried } = passwordConfig(port(), victim)
      const stranger = new AuthClient(config)
      const strangerIps = ["198.51.100.11", "198.51.100.12", "2001:db8:66::1", "2001:db8:67::1"]
      for (const ip of strangerIps) {
        for (let i = 0; i < 5; i++)
          expect(
            refusedTo(
              await postFields(
                stranger,
                [
                  ["username", victim],
                  ["password", `guess-${i}`],
                ],
                ip,
              ),
            ),
          ).toBe("CredentialsSignin")
        // the stranger's own client is throttled, even should it now guess right
        expect(
          refusedTo(
            await postFields(
              stranger,
              [
                ["username", victim],
                ["password", PASSWORD],
              ],
              ip,
            ),
          ),
        ).toBe("RateLimited")
      }
      expect(tried).toHaveLength(20)

      const owner = new AuthClient(config)
      const signIn = await postFields(
        owner,
        [
          ["username", victim],
          ["password", PASSWORD],
        ],
        "192.0.2.200",
      )
      expect(signIn.headers.get("location")).toBe(ORIGIN)
      const session = (await (await owner.send("/auth/session", { clientIp: "192.0.2.200" })).json()) as { user?: { name?: string } }
      expect(session.user?.name).toBe(victim)
      // the stranger's clients stay throttled after the owner's success
      expect(
        refusedTo(
          await postFields(
            stranger,
            [
              ["username", victim],
              ["password", "guess-6"],
            ],
            strangerIps[0] as string,
          ),
        ),
      ).toBe("RateLimited")
    })

    it("the owner's own mistakes lock only the owner's client; opting into the account-wide rule locks every client", async () => {
      const victim = someone()
      const state = port()
      const { config } = passwordConfig(state, victim)
      const wide: AuthConfig = { ...config, rateLimit: { enabled: true, rules: { passwordAccountWide: { max: 6, window: 300 } } } }
      const stranger = new AuthClient(wide)
      for (let i = 0; i < 7; i++)
        await postFields(
          stranger,
          [
            ["username", victim],
            ["password", "wrong"],
          ],
          `198.51.100.${30 + (i % 2)}`,
        )
      const owner = new AuthClient(wide)
      const refused = await postFields(
        owner,
        [
          ["username", victim],
          ["password", PASSWORD],
        ],
        "192.0.2.201",
      )
      expect(refusedTo(refused)).toBe("RateLimited")
      expect(refused.headers.get("ratelimit-policy")).toBe('"passwordAccountWide";q=6;w=300')
    })
  })

  describe("the mail limit counts the address the flow mails", () => {
    function emailConfig(serverState: ServerState): AuthConfig {
      return {
        secret: SECRET,
        trustHost: true,
        logger: captureLogger().logger,
        serverState,
        adapter: MemoryAdapter(),
        rateLimit: { enabled: true },
        providers: [Nodemailer({ server: smtp.url, from: "authchart <auth@example.test>" })],
      }
    }
    const mailsTo = (address: string) => smtp.messages.filter((m) => m.to[0] === address).length
    /** Waits until `total` messages have arrived, then a little longer: none more may come. */
    async function settled(total: number) {
      await smtp.waitForMessage(total)
      await new Promise((resolve) => setTimeout(resolve, 300))
    }

    it("an email in the query string is refused (EmailSignInError) and sends nothing; the body's is counted", async () => {
      const address = `${someone()}@example.test`
      const client = new AuthClient(emailConfig(port()))
      const before = smtp.messages.length
      for (let i = 0; i < 5; i++) {
        const csrfToken = await client.csrf()
        const res = await client.send(`/auth/signin/nodemailer?email=${encodeURIComponent(address)}`, {
          form: { csrfToken },
          clientIp: `192.0.2.${i + 1}`,
        })
        expect(refusedTo(res)).toBe("EmailSignInError")
      }
      for (let i = 0; i < 4; i++) {
        const csrfToken = await client.csrf()
        await client.send(`/auth/signin/nodemailer?email=decoy-${i}%40example.test`, {
          form: { csrfToken, email: address },
          clientIp: `192.0.2.${i + 10}`,
        })
      }
      await settled(before + 3)
      expect(mailsTo(address)).toBe(3)
      expect(smtp.messages.length).toBe(before + 3)
    })

    it("case and NFKC variants of one address (full-width letters and ＠) reach one inbox at most 3 times", async () => {
      const local = someone()
      const address = `${local}@example.test`
      const client = new AuthClient(emailConfig(port()))
      const before = smtp.messages.length
      const fullWidth = (s: string) =>
        [...s].map((ch) => (/[a-z0-9@]/.test(ch) ? String.fromCodePoint((ch.codePointAt(0) ?? 0) + 0xfee0) : ch)).join("")
      const spellings = [
        address,
        address.toUpperCase(),
        `${fullWidth(local)}@example.test`,
        `${local}＠example.test`,
        ` ${address.toUpperCase()} `,
        fullWidth(address),
      ]
      for (const [i, email] of spellings.entries()) {
        const csrfToken = await client.csrf()
        const res = await client.send("/auth/signin/nodemailer", { form: { csrfToken, email }, clientIp: `192.0.2.${i + 20}` })
        expect(res.headers.get("location")).toMatch(i < 3 ? /\/auth\/verify-request/ : /error=RateLimited/)
      }
      await settled(before + 3)
      expect(mailsTo(address)).toBe(3)
      expect(smtp.messages.length).toBe(before + 3)
    })
  })
})
