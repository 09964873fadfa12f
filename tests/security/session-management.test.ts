/**
 * Attack class: reaching another user's sessions or accounts through the management endpoints (OWASP
 * ASVS V7.4 "session termination", V4.2 "operation level access control"), forging those requests from
 * another site (CSRF), hammering them, and racing the unlink guard. Each defence has a scenario that
 * fails without it:
 * - a session id is looked up in the signed-in user's own index only (src/runtime/sessions/user-sessions.ts,
 *   `revokeSessionOf`), and an index entry whose session belongs to someone else is never acted on;
 * - the POST rows carry `csrf: true` (src/runtime/sessions/account-routes.ts);
 * - the `accountClient` rate limit (src/runtime/limits/limiter.ts);
 * - the unlink guard and its per-user lock (src/runtime/sessions/accounts.ts, `unlinkFor`); the guard's ways in
 *   (another account, an email sign-in, a passkey) each let the last account go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import type { AuthConfig } from "../../src/index.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import Passkey from "../../src/providers/passkey.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { stateKey } from "../../src/runtime/limits/server-state.js"
import { sessionId } from "../../src/runtime/sessions/user-index.js"
import { AuthClient } from "../helpers.js"
import type { OidcServer } from "../support/oidc-provider.js"
import {
  SESSION_COOKIE,
  answerUrl,
  beginSignIn,
  browser,
  deliver,
  errorTypes,
  oidcAt,
  people,
  sessionOf,
  signInAs,
  startIdp,
} from "./support.js"

interface Listed {
  id: string
  current?: boolean
}

async function post(client: AuthClient, path: string, form: Record<string, string> = {}, clientIp?: string) {
  const csrfToken = await client.csrf()
  return client.send(path, { form: { csrfToken, ...form }, ...(clientIp ? { clientIp } : {}) })
}

/** One app with database sessions (memory adapter and port), and a browser per name signed in on it. */
function databaseApp(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  const serverState = memoryServerState()
  const app = browser([people], { adapter, serverState, session: { strategy: "database", allowCredentials: true }, ...extra })
  const device = async (name: string) => {
    const client = new AuthClient(app.config)
    await signInAs(client, name)
    return client
  }
  return { ...app, adapter, serverState, device }
}

describe("another user's sessions", () => {
  it("Mallory posting Alice's session id (or token) revokes nothing: 404 SessionNotFound, Alice stays signed in", async () => {
    const { device, log } = databaseApp()
    const alice = await device("alice")
    const mallory = await device("mallory")
    const aliceToken = alice.jar.get(SESSION_COOKIE) as string
    for (const id of [sessionId(aliceToken), aliceToken]) {
      const res = await post(mallory, "/auth/revoke-session", { id })
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ error: "SessionNotFound" })
    }
    expect((await sessionOf(alice))?.user.name).toBe("alice")
    expect(errorTypes(log)).toEqual(["SessionNotFound", "SessionNotFound"])
  })

  it("an index entry of Mallory's pointing at Alice's session (a stale or planted entry) is neither listed nor revoked", async () => {
    const { device, serverState } = databaseApp()
    const alice = await device("alice")
    const mallory = await device("mallory")
    const aliceToken = alice.jar.get(SESSION_COOKIE) as string
    const planted = "planted-id-0123456789a"
    await serverState.setFields(stateKey("sessions", "u-mallory"), { [`${planted}:t`]: aliceToken, [`${planted}:c`]: "1" }, 60_000)
    const res = await post(mallory, "/auth/revoke-session", { id: planted })
    expect(res.status).toBe(404)
    expect((await sessionOf(alice))?.user.name).toBe("alice")
    const listed = (await (await mallory.send("/auth/sessions")).json()) as Listed[]
    expect(listed.map((s) => s.id)).toEqual([sessionId(mallory.jar.get(SESSION_COOKIE) as string)])
  })

  it("revoke-other-sessions ends only the asking user's other sessions", async () => {
    const { device } = databaseApp()
    const alice = await device("alice")
    const bob = await device("bob")
    await device("alice")
    expect((await post(alice, "/auth/revoke-other-sessions")).status).toBe(200)
    expect((await sessionOf(bob))?.user.name).toBe("bob")
    expect((await sessionOf(alice))?.user.name).toBe("alice")
  })
})

describe("cross-site requests (CSRF)", () => {
  it.each([
    "/auth/revoke-session",
    "/auth/revoke-other-sessions",
    "/auth/unlink-account/idp",
  ])("POST %s without the CSRF token is MissingCSRF and changes nothing", async (path) => {
    const { device, log } = databaseApp()
    const alice = await device("alice")
    const other = await device("alice")
    const otherId = sessionId(other.jar.get(SESSION_COOKIE) as string)
    const res = await alice.send(path, { form: { id: otherId } })
    expect(res.status).toBe(303)
    expect(new URL(res.headers.get("location") as string).searchParams.get("error")).toBe("MissingCSRF")
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
    expect((await sessionOf(other))?.user.name).toBe("alice")
    expect((await sessionOf(alice))?.user.name).toBe("alice")
  })
})

describe("abuse limits", () => {
  it("the 21st management POST from one client within a minute is refused with 429 RateLimited (accountClient)", async () => {
    const { device } = databaseApp({ rateLimit: { enabled: true } })
    const alice = await device("alice")
    for (let i = 0; i < 20; i++) {
      expect((await post(alice, "/auth/revoke-session", { id: `nothing-${i}` }, "198.51.100.9")).status).toBe(404)
    }
    const refused = await post(alice, "/auth/revoke-session", { id: "nothing" }, "198.51.100.9")
    expect(refused.status).toBe(429)
    expect(refused.headers.get("ratelimit-policy")).toBe('"accountClient";q=20;w=60')
    expect(await refused.json()).toMatchObject({ error: "RateLimited" })
    // another client is not affected
    expect((await post(alice, "/auth/revoke-session", { id: "nothing" }, "198.51.100.10")).status).toBe(404)
  })
})

describe("the unlink guard", () => {
  let idp: OidcServer
  beforeAll(async () => {
    idp = await startIdp(["idp", "idp2"])
  })
  afterAll(() => idp?.stop())

  async function linkBoth(ids = ["idp", "idp2"], extra: { providers?: unknown[]; config?: Partial<AuthConfig> } = {}) {
    const adapter = MemoryAdapter()
    const providers = [oidcAt(idp, "idp"), oidcAt(idp, "idp2"), ...(extra.providers ?? [])]
    const app = browser(providers, { adapter, serverState: memoryServerState(), ...extra.config })
    const client = app.client
    for (const id of ids) {
      const start = await beginSignIn(client, id)
      await deliver(client, answerUrl(await idp.authorize(start.href, { account: "alice@example.test" })))
    }
    expect(await adapter.getUserByAccount({ provider: ids.at(-1) as string, providerAccountId: "user-alice" })).not.toBeNull()
    return { ...app, adapter, client }
  }

  it("the last linked account cannot be unlinked: 409 LastSignInMethod, the account stays", async () => {
    const { client, adapter } = await linkBoth()
    expect((await post(client, "/auth/unlink-account/idp")).status).toBe(200)
    const refused = await post(client, "/auth/unlink-account/idp2")
    expect(refused.status).toBe(409)
    expect(await adapter.getUserByAccount({ provider: "idp2", providerAccountId: "user-alice" })).not.toBeNull()
  })

  it("with an email provider configured, the user's email address is a way in: the last account may go", async () => {
    const mail = Nodemailer({ server: { host: "127.0.0.1", port: 9, secure: false, ignoreTLS: true }, from: "auth@example.test" })
    const { client, adapter } = await linkBoth(["idp"], { providers: [mail] })
    expect((await post(client, "/auth/unlink-account/idp")).status).toBe(200)
    expect(await adapter.getUserByAccount({ provider: "idp", providerAccountId: "user-alice" })).toBeNull()
  })

  it("with a passkey registered (WebAuthn configured), the last account may go", async () => {
    const options = { providers: [Passkey()], config: { experimental: { enableWebAuthn: true } } }
    const { client, adapter } = await linkBoth(["idp"], options)
    const user = await adapter.getUserByAccount({ provider: "idp", providerAccountId: "user-alice" })
    await adapter.createAuthenticator({
      credentialID: "cred-1",
      userId: user?.id as string,
      providerAccountId: "cred-1",
      counter: 0,
      credentialBackedUp: false,
      credentialPublicKey: "AAAA",
      credentialDeviceType: "singleDevice",
      transports: null,
    })
    expect((await post(client, "/auth/unlink-account/idp")).status).toBe(200)
  })

  it("two unlinks raced from two tabs: exactly one succeeds, the user keeps one account", async () => {
    const { client, adapter } = await linkBoth()
    const csrfToken = await client.csrf()
    const results = await Promise.all(["idp", "idp2"].map((id) => client.send(`/auth/unlink-account/${id}`, { form: { csrfToken } })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    const left = await Promise.all(
      ["idp", "idp2"].map((provider) => adapter.getUserByAccount({ provider, providerAccountId: "user-alice" })),
    )
    expect(left.filter(Boolean)).toHaveLength(1)
  })

  it("Mallory cannot unlink Alice's account: only the signed-in user's own accounts are found", async () => {
    const { adapter, config } = await linkBoth()
    const mallory = new AuthClient(config)
    const start = await beginSignIn(mallory, "idp")
    await deliver(mallory, answerUrl(await idp.authorize(start.href, { account: "bob@example.test" })))
    const res = await post(mallory, "/auth/unlink-account/idp2")
    expect(res.status).toBe(404)
    expect(await adapter.getUserByAccount({ provider: "idp2", providerAccountId: "user-alice" })).not.toBeNull()
  })
})
