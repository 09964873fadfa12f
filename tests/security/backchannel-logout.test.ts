/**
 * Attack class: forged or replayed back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.6,
 * §4: "logout tokens ... MUST be validated"). `POST /auth/backchannel-logout/<provider>` is reachable by
 * anyone, so only a token the provider signed, for this client, fresh, once, and shaped as a logout
 * token (the back-channel `events` member, no `nonce`) may end a user's sessions. Every refusal is
 * 400 `{"error":"invalid_request"}`, never cached, logged once as `BackchannelLogoutError`, and the
 * user's session stands. Tokens are signed with the real provider's key (oidc-provider's JWKS).
 *
 * A valid token ends exactly the sessions it names (§2.7), on both session strategies: with `sid`, the
 * sessions that provider session started (each sign-in here went through its own provider session, so
 * alice's two browsers have two `sid`s); with `sub` and `sid`, only those of that user; with `sub` alone,
 * all of the user's. A `sid` we never saw is a success that ends nothing (the person is signed out here
 * already).
 */
import { randomUUID } from "node:crypto"
import { SignJWT, decodeJwt, generateKeyPair } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import type { AuthConfig } from "../../src/index.js"
import { AuthClient } from "../helpers.js"
import { type OidcServer, signWithProviderKey } from "../support/oidc-provider.js"
import { CLIENT, OTHER_CLIENT, answerUrl, beginSignIn, browser, deliver, errorTypes, oidcAt, sessionOf, startIdp } from "./support.js"

const EVENT = "http://schemas.openid.net/event/backchannel-logout"
let idp: OidcServer

beforeAll(async () => {
  idp = await startIdp(["idp"], { backchannel: true })
})
afterAll(async () => {
  await idp?.stop()
})

/** The claims of a valid logout token for alice, with `overrides` applied (undefined removes a claim). */
function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    iss: idp.issuer,
    aud: CLIENT.id,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    sub: "user-alice",
    sid: "idp-session-1",
    events: { [EVENT]: {} },
  }
  const merged = { ...base, ...overrides }
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined))
}

/** Events that note the `sid` of each sign-in's ID token in `sids`, in order. */
function notingSids(sids: string[]): Partial<AuthConfig> {
  return {
    events: {
      signIn: ({ account }) => {
        if (typeof account?.id_token === "string") sids.push(decodeJwt(account.id_token).sid as string)
      },
    },
  }
}

/** Signs `client` in through the provider, in a provider session of its own; answers that session's `sid`. */
async function signInThroughIdp(client: AuthClient, sids: string[], account?: string): Promise<string> {
  const start = await beginSignIn(client, "idp")
  const res = await deliver(client, answerUrl(await idp.authorize(start.href, account ? { account } : {})))
  expect(res.status).toBe(302)
  const sid = sids.at(-1)
  expect(sid).toMatch(/./)
  return sid as string
}

/** A browser signed in as alice through the provider, the config it runs on, and the provider session's `sid`. */
async function aliceSignedIn(extra: Partial<AuthConfig> = {}) {
  const sids: string[] = []
  const signedIn = browser([oidcAt(idp, "idp")], { ...extra, ...notingSids(sids) })
  const sid = await signInThroughIdp(signedIn.client, sids)
  expect((await sessionOf(signedIn.client))?.user.email).toBe("alice@example.test")
  /** Another browser of the same app, signed in as `account` (default alice) in another provider session. */
  const another = async (account?: string) => {
    const other = new AuthClient(signedIn.config)
    return { client: other, sid: await signInThroughIdp(other, sids, account) }
  }
  return { ...signedIn, sid, another }
}

/** The provider's server posting `token` (no cookies, no CSRF token). */
function post(config: AuthConfig, token: string | undefined, provider = "idp", clientIp?: string): Promise<Response> {
  return new AuthClient(config).send(`/auth/backchannel-logout/${provider}`, {
    form: token === undefined ? {} : { logout_token: token },
    ...(clientIp ? { clientIp } : {}),
  })
}

async function expectRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(400)
  expect(res.headers.get("cache-control")).toBe("no-store")
  expect(await res.json()).toEqual({ error: "invalid_request" })
}

describe("back-channel logout: baseline", () => {
  it("a logout token signed by the provider for this client ends alice's session: 200, never cached", async () => {
    const { client, config, log, sid } = await aliceSignedIn()
    const res = await post(config, await signWithProviderKey(claims({ sid })))
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    expect(await sessionOf(client)).toBeNull()
    expect(errorTypes(log)).toEqual([])
  })
})

describe("back-channel logout: refused tokens leave the session standing", () => {
  const cases: Array<[string, () => Promise<string>]> = [
    [
      "a forged signature (another key under the provider's kid)",
      async () => {
        const { privateKey } = await generateKeyPair("RS256")
        return new SignJWT(claims()).setProtectedHeader({ alg: "RS256", kid: "authchart-test-rs256" }).sign(privateKey)
      },
    ],
    ["an unsigned token (alg none)", async () => `${b64({ alg: "none" })}.${b64(claims())}.`],
    ["the wrong issuer", () => signWithProviderKey(claims({ iss: "https://evil.example" }))],
    ["a token for another client of the provider (aud)", () => signWithProviderKey(claims({ aud: OTHER_CLIENT.id }))],
    ["no audience", () => signWithProviderKey(claims({ aud: undefined }))],
    ["a nonce (an ID token, not a logout token)", () => signWithProviderKey(claims({ nonce: "n-0S6_WzA2Mj" }))],
    ["no events claim", () => signWithProviderKey(claims({ events: undefined }))],
    ["an events claim without the back-channel logout member", () => signWithProviderKey(claims({ events: { "urn:other": {} } }))],
    ["a back-channel logout member that is not an object", () => signWithProviderKey(claims({ events: { [EVENT]: "yes" } }))],
    ["an iat older than maxTokenAge (5 minutes)", () => signWithProviderKey(claims({ iat: Math.floor(Date.now() / 1000) - 600 }))],
    ["an iat in the future", () => signWithProviderKey(claims({ iat: Math.floor(Date.now() / 1000) + 600 }))],
    ["no iat", () => signWithProviderKey(claims({ iat: undefined }))],
    ["an exp in the past", () => signWithProviderKey(claims({ exp: Math.floor(Date.now() / 1000) - 60 }))],
    ["no jti", () => signWithProviderKey(claims({ jti: undefined }))],
    ["neither sub nor sid", () => signWithProviderKey(claims({ sub: undefined, sid: undefined }))],
    ["not a JWT at all", async () => "not-a-jwt"],
  ]

  it.each(cases)("%s", async (_name, make) => {
    const { client, config, log } = await aliceSignedIn()
    await expectRefusal(await post(config, await make()))
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError"])
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("a replayed token (same jti) is refused; the sign-in made after the first logout stands", async () => {
    const { client, config, log, sid } = await aliceSignedIn()
    const token = await signWithProviderKey(claims({ sid }))
    expect((await post(config, token)).status).toBe(200)
    expect(await sessionOf(client)).toBeNull()

    const again = await beginSignIn(client, "idp")
    await deliver(client, answerUrl(await idp.authorize(again.href)))
    await new Promise((resolve) => setTimeout(resolve, 5)) // a later millisecond than the revocation
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")

    await expectRefusal(await post(config, token))
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError"])
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("an unknown provider, or a provider that is not OIDC, is refused", async () => {
    const { client, config, log } = await aliceSignedIn()
    await expectRefusal(await post(config, await signWithProviderKey(claims()), "nope"))
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError"])
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("a request without logout_token is refused", async () => {
    const { config, log } = await aliceSignedIn()
    await expectRefusal(await post(config, undefined))
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError"])
  })
})

/** How each strategy keeps sessions: JWT cookies, or database sessions in the memory adapter. */
const STRATEGIES: Array<[string, Partial<AuthConfig>]> = [
  ["jwt", {}],
  ["database", { adapter: MemoryAdapter(), session: { strategy: "database" } }],
]

describe.each(STRATEGIES)("back-channel logout ends the sessions the token names (%s sessions)", (_name, storage) => {
  // a new adapter per test: the memory adapter of the row above is shared otherwise
  const fresh = (): Partial<AuthConfig> => (storage.adapter ? { ...storage, adapter: MemoryAdapter() } : storage)

  it("only a sid (changed meaning: this was refused before): the session of that provider session ends, alice's other stands", async () => {
    const { client, config, log, sid, another } = await aliceSignedIn(fresh())
    const other = await another()
    expect(other.sid).not.toBe(sid)
    const res = await post(config, await signWithProviderKey(claims({ sub: undefined, sid })))
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    expect(await sessionOf(client)).toBeNull()
    expect((await sessionOf(other.client))?.user.email).toBe("alice@example.test")
    expect(errorTypes(log)).toEqual([])
  })

  it("sub and sid: the sid's session of that user ends; another user's sid under alice's sub ends nothing", async () => {
    const { client, config, log, sid, another } = await aliceSignedIn(fresh())
    const other = await another()
    const bob = await another("user-bob")
    // bob's provider session named with alice's sub: not alice's session, not bob's either
    expect((await post(config, await signWithProviderKey(claims({ sid: bob.sid })))).status).toBe(200)
    expect((await sessionOf(bob.client))?.user.email).toBe("bob@example.test")
    expect((await post(config, await signWithProviderKey(claims({ sid })))).status).toBe(200)
    expect(await sessionOf(client)).toBeNull()
    expect((await sessionOf(other.client))?.user.email).toBe("alice@example.test")
    expect(errorTypes(log)).toEqual([])
  })

  it("only a sub: every session of alice ends, bob's stands", async () => {
    const { client, config, another } = await aliceSignedIn(fresh())
    const other = await another()
    const bob = await another("user-bob")
    expect((await post(config, await signWithProviderKey(claims({ sid: undefined })))).status).toBe(200)
    expect(await sessionOf(client)).toBeNull()
    expect(await sessionOf(other.client)).toBeNull()
    expect((await sessionOf(bob.client))?.user.email).toBe("bob@example.test")
  })

  it("a sid we never saw: 200 and nothing ends (Back-Channel Logout 1.0 §2.7: already logged out is a success)", async () => {
    const { client, config, log } = await aliceSignedIn(fresh())
    const res = await post(config, await signWithProviderKey(claims({ sub: undefined, sid: "never-seen-sid" })))
    expect(res.status).toBe(200)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
    expect(errorTypes(log)).toEqual([])
  })
})

describe("back-channel logout by sid: a JWT session keeps its sessionId", () => {
  it("re-issued through a jwt callback that builds a new token, the session still ends by its sid", async () => {
    const callbacks = { jwt: ({ token }: { token: Record<string, unknown> }) => ({ sub: token.sub, name: token.name, email: token.email }) }
    const { client, config, sid } = await aliceSignedIn({ callbacks } as Partial<AuthConfig>)
    const before = client.jar.get("authjs.session-token")
    const update = await client.send("/auth/session", { form: { csrfToken: await client.csrf() } })
    expect(update.status).toBe(200)
    expect(client.jar.get("authjs.session-token")).not.toBe(before)
    expect((await post(config, await signWithProviderKey(claims({ sub: undefined, sid })))).status).toBe(200)
    expect(await sessionOf(client)).toBeNull()
  })
})

describe("back-channel logout: abuse limits", () => {
  it("refuses a client past backchannelClient's maximum with 429 before any token is checked", async () => {
    const { config, log } = await aliceSignedIn({ rateLimit: { enabled: true, rules: { backchannelClient: { max: 2 } } } })
    for (let i = 0; i < 2; i += 1) await expectRefusal(await post(config, "garbage", "idp", "203.0.113.7"))
    const refused = await post(config, await signWithProviderKey(claims()), "idp", "203.0.113.7")
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBeTruthy()
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError", "BackchannelLogoutError", "RateLimited"])
  })
})

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url")
}
