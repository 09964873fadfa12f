/**
 * Provider tokens with JWT sessions (`session.providerTokens: "server"`), against the real oidc-provider
 * with 300-second access tokens and refresh-token rotation: the token set kept at sign-in, the web
 * `getAccessToken`, one refresh for 50 concurrent calls at expiry (counted at the IdP's token endpoint),
 * the rotated refresh token stored and the old one refused by the IdP, `invalid_grant` →
 * `RefreshTokenError` and `session.error`, faults bounded in time, sign-out (or a back-channel logout
 * of the session) deleting the tokens once no session of the user holds them, and the Express form.
 * The clock moves by faking `Date` only (timers and sockets stay real).
 */
import { randomUUID } from "node:crypto"
import express from "express"
import { decodeJwt } from "jose"
import { describe, expect, it, vi } from "vitest"
import {
  AccessTokenUnavailable,
  type AuthConfig,
  getAccessToken,
  type JWT,
  memoryServerState,
  RefreshTokenError,
  revokeSessions,
  stateKey,
} from "../src/index.js"
import { ExpressAuth, getAccessToken as getAccessTokenExpress } from "../src/integration/express.js"
import { stableUserId } from "../src/runtime/sessions/user-id.js"
import { AuthClient, SECRET, captureLogger } from "./helpers.js"
import { servesApps } from "./support/express-apps.js"
import { signWithProviderKey } from "./support/oidc-provider.js"
import {
  ACCESS_TOKEN_TTL,
  CLIENT,
  advanceClock,
  idpProvider,
  refreshAtIdp,
  requestOf,
  sessionOf,
  signInWithIdp,
  startTokenIdp,
  usesTokenIdp,
  userinfoSub,
} from "./support/token-app.js"

const the = usesTokenIdp()

const ALICE = "user-alice"
const aliceId = stableUserId("idp", ALICE)
function app(extra: Partial<AuthConfig> = {}, provider: Record<string, unknown> = {}) {
  const serverState = memoryServerState()
  const config: AuthConfig = {
    secret: SECRET,
    logger: captureLogger().logger,
    trustHost: true,
    providers: [idpProvider(the.idp, provider)],
    session: { providerTokens: "server" },
    serverState,
    ...extra,
  }
  const stored = async () => JSON.parse((await serverState.get(stateKey("ptok", aliceId, "idp"))) ?? "null")
  return { config, serverState, stored, client: new AuthClient(config) }
}

describe("provider tokens with JWT sessions", () => {
  it("sign-in keeps the token set in the server store; getAccessToken returns it as it is while valid", async () => {
    const { config, client, stored } = app()
    await signInWithIdp(the.idp, client)
    const record = await stored()
    expect(record).toMatchObject({ providerAccountId: ALICE, access_token: expect.any(String), refresh_token: expect.any(String) })
    expect(record.expires_at).toBeGreaterThan(Date.now() / 1000 + ACCESS_TOKEN_TTL - 5)
    const before = the.refreshes()
    const token = await getAccessToken(requestOf(client), "idp", config)
    expect(token).toBe(record.access_token)
    expect(await userinfoSub(the.idp, token as string)).toBe(ALICE)
    expect(the.refreshes()).toBe(before)
    // the cookie holds no provider token
    expect(client.jar.header()).not.toContain(record.access_token)
  })

  it("the store keeps what the provider's account() keeps, while the jwt callback gets the whole token response", async () => {
    const seen: Record<string, unknown>[] = []
    const account = (tokens: Record<string, unknown>) => ({ access_token: tokens.access_token, expires_at: tokens.expires_at })
    const jwt = ({ token, account: a }: { token: JWT; account?: unknown }) => {
      if (a) seen.push({ ...(a as object) })
      return token
    }
    const { client, stored } = app({ callbacks: { jwt } }, { account })
    await signInWithIdp(the.idp, client)
    const record = await stored()
    expect(Object.keys(record).sort()).toEqual(["access_token", "expires_at", "providerAccountId"])
    expect(seen).toEqual([
      expect.objectContaining({ access_token: record.access_token, refresh_token: expect.any(String), expires_in: ACCESS_TOKEN_TTL }),
    ])
  })

  it("at expiry 50 concurrent calls cause exactly one refresh; the rotated refresh token is stored, the old one refused", async () => {
    const { config, client, stored } = app()
    await signInWithIdp(the.idp, client)
    const first = await stored()
    advanceClock(ACCESS_TOKEN_TTL + 1)
    const before = the.refreshes()
    const tokens = await Promise.all(Array.from({ length: 50 }, () => getAccessToken(requestOf(client), "idp", config)))
    expect(the.refreshes()).toBe(before + 1)
    expect(new Set(tokens).size).toBe(1)
    const rotated = await stored()
    expect(tokens[0]).toBe(rotated.access_token)
    expect(rotated.access_token).not.toBe(first.access_token)
    expect(rotated.refresh_token).not.toBe(first.refresh_token)
    expect(rotated.expires_at).toBe(Math.floor(Date.now() / 1000) + ACCESS_TOKEN_TTL)
    expect(await userinfoSub(the.idp, rotated.access_token)).toBe(ALICE)
    // fresh again: no further refresh
    expect(await getAccessToken(requestOf(client), "idp", config)).toBe(rotated.access_token)
    expect(the.refreshes()).toBe(before + 1)
    expect(await refreshAtIdp(the.idp, first.refresh_token)).toBe("invalid_grant")
  })

  it("the margin: a token that expires within refreshMargin is refreshed before it expires", async () => {
    const { config, client, stored } = app({ session: { providerTokens: { refreshMargin: 30 } } })
    await signInWithIdp(the.idp, client)
    const first = await stored()
    advanceClock(ACCESS_TOKEN_TTL - 40)
    expect(await getAccessToken(requestOf(client), "idp", config)).toBe(first.access_token)
    advanceClock(15)
    const before = the.refreshes()
    expect(await getAccessToken(requestOf(client), "idp", config)).not.toBe(first.access_token)
    expect(the.refreshes()).toBe(before + 1)
  })

  it("refreshed tokens that live shorter than the margin: one refresh, then that token for half its life, not a refresh per call", async () => {
    const short = await startTokenIdp({ refreshedAccessTokenTtl: 30 })
    try {
      const config: AuthConfig = {
        secret: SECRET,
        logger: captureLogger().logger,
        trustHost: true,
        providers: [idpProvider(short)],
        session: { providerTokens: "server" }, // the default margin, 60 s: twice the refreshed tokens' life
        serverState: memoryServerState(),
      }
      const client = new AuthClient(config)
      await signInWithIdp(short, client)
      advanceClock(ACCESS_TOKEN_TTL + 1)
      const refreshes = () => short.tokenRequests.grants.refresh_token ?? 0
      const first = await getAccessToken(requestOf(client), "idp", config)
      expect(refreshes()).toBe(1)
      // one call after another, as requests spread out over time on a busy machine arrive
      for (let i = 0; i < 10; i++) expect(await getAccessToken(requestOf(client), "idp", config)).toBe(first)
      expect(refreshes()).toBe(1)
      expect(await userinfoSub(short, first as string)).toBe(ALICE)
      advanceClock(16) // past half of its 30 s life: refreshed again, once
      const second = await getAccessToken(requestOf(client), "idp", config)
      expect(second).not.toBe(first)
      expect(await getAccessToken(requestOf(client), "idp", config)).toBe(second)
      expect(refreshes()).toBe(2)
    } finally {
      await short.stop()
    }
  })

  it("invalid_grant: RefreshTokenError, the session says so, later calls fail without asking the IdP; a new sign-in mends it", async () => {
    const { config, client, stored } = app()
    await signInWithIdp(the.idp, client)
    const first = await stored()
    // the refresh token used elsewhere first: oidc-provider rotates it, so ours is spent
    expect(await refreshAtIdp(the.idp, first.refresh_token)).toBe("ok")
    advanceClock(ACCESS_TOKEN_TTL + 1)
    await expect(getAccessToken(requestOf(client), "idp", config)).rejects.toBeInstanceOf(RefreshTokenError)
    expect(await sessionOf(client)).toMatchObject({ error: "RefreshTokenError", user: { email: "alice@example.test" } })
    expect((await stored()).refresh_token).toBeUndefined()
    const before = the.refreshes()
    await expect(getAccessToken(requestOf(client), "idp", config)).rejects.toBeInstanceOf(RefreshTokenError)
    expect(the.refreshes()).toBe(before)
    vi.useRealTimers()
    await signInWithIdp(the.idp, client)
    expect(await sessionOf(client)).not.toHaveProperty("error")
    expect(await getAccessToken(requestOf(client), "idp", config)).toEqual(expect.any(String))
  })

  it("a failing token endpoint: AccessTokenUnavailable (logged once for 10 calls), the tokens stand, the next call refreshes", async () => {
    const log = captureLogger()
    const { config, client, stored } = app({ logger: log.logger })
    await signInWithIdp(the.idp, client)
    const first = await stored()
    advanceClock(ACCESS_TOKEN_TTL + 1)
    the.idp.setTokenFault("500")
    const calls = await Promise.allSettled(Array.from({ length: 10 }, () => getAccessToken(requestOf(client), "idp", config)))
    expect(calls.map((c) => c.status === "rejected" && c.reason instanceof AccessTokenUnavailable)).toEqual(Array(10).fill(true))
    expect(log.errors.map((e) => (e as AccessTokenUnavailable).type)).toEqual(["AccessTokenUnavailable"])
    expect(JSON.stringify(log.errors[0]?.cause ?? {})).not.toContain(first.refresh_token)
    expect(await stored()).toEqual(first)
    expect(await sessionOf(client)).not.toHaveProperty("error")
    the.idp.setTokenFault(null)
    const token = await getAccessToken(requestOf(client), "idp", config)
    expect(token).not.toBe(first.access_token)
    expect(await userinfoSub(the.idp, token as string)).toBe(ALICE)
  })

  it("a token endpoint that never answers: AccessTokenUnavailable within the provider's timeout", async () => {
    const { config, client, stored } = app({}, { timeout: 300 })
    await signInWithIdp(the.idp, client)
    const first = await stored()
    advanceClock(ACCESS_TOKEN_TTL + 1)
    the.idp.setTokenFault("slow")
    await expect(getAccessToken(requestOf(client), "idp", config)).rejects.toBeInstanceOf(AccessTokenUnavailable)
    expect(await stored()).toEqual(first)
  })

  it("nobody signed in: null; not an OAuth provider, or no opt-in: a TypeError", async () => {
    const { config, client } = app()
    expect(await getAccessToken(requestOf(client), "idp", config)).toBeNull()
    await expect(getAccessToken(requestOf(client), "nope", config)).rejects.toBeInstanceOf(TypeError)
    const plain = app({ session: {} })
    await signInWithIdp(the.idp, plain.client)
    expect(await plain.serverState.get(stateKey("ptok", aliceId, "idp"))).toBeNull()
    await expect(getAccessToken(requestOf(plain.client), "idp", plain.config)).rejects.toThrow(/session\.providerTokens/)
  })

  it("a revoked session gets no token (the session is read as GET /session reads it)", async () => {
    const { config, client } = app()
    await signInWithIdp(the.idp, client)
    expect(await getAccessToken(requestOf(client), "idp", config)).toEqual(expect.any(String))
    await revokeSessions(aliceId, config)
    advanceClock(1)
    expect(await getAccessToken(requestOf(client), "idp", config)).toBeNull()
  })

  it("another user's session never reaches Alice's tokens", async () => {
    const { config, client, stored } = app()
    await signInWithIdp(the.idp, client)
    const bob = new AuthClient(config)
    await signInWithIdp(the.idp, bob, "user-bob")
    const token = await getAccessToken(requestOf(bob), "idp", config)
    expect(token).not.toBe((await stored()).access_token)
    expect(await userinfoSub(the.idp, token as string)).toBe("user-bob")
  })

  it("sign-out deletes the kept tokens once no session of the user holds them: the first of two sign-outs keeps them", async () => {
    const { config, client, serverState, stored } = app()
    await signInWithIdp(the.idp, client)
    const phone = new AuthClient(config)
    await signInWithIdp(the.idp, phone)
    const signOut = async (browser: AuthClient) => {
      const res = await browser.send("/auth/signout", { form: { csrfToken: await browser.csrf() } })
      expect(res.status).toBe(303)
    }
    await signOut(client)
    expect(await stored()).not.toBeNull()
    expect(await getAccessToken(requestOf(phone), "idp", config)).toBe((await stored()).access_token)
    await signOut(phone)
    expect(await stored()).toBeNull()
    expect(await serverState.getFields(stateKey("ptok-holders", aliceId, "idp"))).toEqual({})
  })

  it("a session ended by a back-channel logout naming its sid lets go of the tokens too", async () => {
    const sids: string[] = []
    const events = {
      signIn: ({ account }: { account: { id_token?: unknown } | null }) =>
        void sids.push(decodeJwt(String(account?.id_token)).sid as string),
    }
    const { config, client, stored } = app({ events } as Partial<AuthConfig>)
    await signInWithIdp(the.idp, client)
    expect(await stored()).not.toBeNull()
    const logoutToken = await signWithProviderKey({
      iss: the.idp.issuer,
      aud: CLIENT.client_id,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      sid: sids[0],
      events: { "http://schemas.openid.net/event/backchannel-logout": {} },
    })
    const res = await new AuthClient(config).send("/auth/backchannel-logout/idp", { form: { logout_token: logoutToken } })
    expect(res.status).toBe(200)
    expect(await sessionOf(client)).toBeNull()
    expect(await stored()).toBeNull()
  })
})

describe("getAccessToken in Express", () => {
  const serve = servesApps()

  it("reads the session of the request and refreshes like the web form", async () => {
    const { config, client } = app()
    await signInWithIdp(the.idp, client)
    const server = express()
    server.use("/auth", ExpressAuth(config))
    server.get("/api/token", async (req, res) => {
      res.json({ token: await getAccessTokenExpress(req, "idp") })
    })
    const listening = await serve(server)
    const ask = async (cookie: string) => {
      const response = await fetch(`${listening.base}/api/token`, { headers: { cookie }, signal: AbortSignal.timeout(5_000) })
      return ((await response.json()) as { token: string | null }).token
    }
    expect(await ask("")).toBeNull()
    const token = await ask(client.jar.header())
    expect(await userinfoSub(the.idp, token as string)).toBe(ALICE)
  })
})
