/**
 * Attack class: forged or replayed back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.6,
 * §4: "logout tokens ... MUST be validated"). `POST /auth/backchannel-logout/<provider>` is reachable by
 * anyone, so only a token the provider signed, for this client, fresh, once, and shaped as a logout
 * token (the back-channel `events` member, no `nonce`) may end a user's sessions. Every refusal is
 * 400 `{"error":"invalid_request"}`, never cached, logged once as `BackchannelLogoutError`, and the
 * user's session stands. Tokens are signed with the real provider's key (oidc-provider's JWKS).
 */
import { randomUUID } from "node:crypto"
import { SignJWT, generateKeyPair } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { AuthClient } from "../helpers.js"
import { type OidcServer, signWithProviderKey } from "../support/oidc-provider.js"
import { CLIENT, OTHER_CLIENT, answerUrl, beginSignIn, browser, deliver, errorTypes, oidcAt, sessionOf, startIdp } from "./support.js"

const EVENT = "http://schemas.openid.net/event/backchannel-logout"
let idp: OidcServer

beforeAll(async () => {
  idp = await startIdp(["idp"])
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

/** A browser signed in as alice through the provider, and the config it runs on. */
async function aliceSignedIn(extra: Partial<AuthConfig> = {}) {
  const signedIn = browser([oidcAt(idp, "idp")], extra)
  const start = await beginSignIn(signedIn.client, "idp")
  const res = await deliver(signedIn.client, answerUrl(await idp.authorize(start.href)))
  expect(res.status).toBe(302)
  expect((await sessionOf(signedIn.client))?.user.email).toBe("alice@example.test")
  return signedIn
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
    const { client, config, log } = await aliceSignedIn()
    const res = await post(config, await signWithProviderKey(claims()))
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
    const { client, config, log } = await aliceSignedIn()
    const token = await signWithProviderKey(claims())
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

  it("a token naming only a sid is refused (sessions are found by sub)", async () => {
    const { client, config, log } = await aliceSignedIn()
    await expectRefusal(await post(config, await signWithProviderKey(claims({ sub: undefined }))))
    expect(errorTypes(log)).toEqual(["BackchannelLogoutError"])
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
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
