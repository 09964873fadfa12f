/**
 * The test OpenID provider on its own: what a real provider checks at its token endpoint (client
 * secret, single-use codes, PKCE, redirect URI) it checks too, so an app's tests cannot pass by luck.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestIdP, type TestIdP } from "authchart/testing"
import { putExpiring } from "../../src/testing/expiring.js"

let idp: TestIdP
beforeAll(async () => {
  idp = await createTestIdP({ clientSecret: "s3cret", redirectUris: ["http://127.0.0.1:9/cb"] })
})
afterAll(() => idp?.close())

const verifier = "a-pkce-verifier-that-is-long-enough-0123456789"
const challenge = createHash("sha256").update(verifier).digest("base64url")

/** Logs in at the IdP's page as `account` and returns the code sent back to the redirect URI. */
async function codeFor(account: string): Promise<string> {
  const params = new URLSearchParams({
    client_id: "test-client",
    redirect_uri: "http://127.0.0.1:9/cb",
    response_type: "code",
    scope: "openid email",
    state: "st",
    code_challenge: challenge,
    code_challenge_method: "S256",
  })
  const page = await (await fetch(`${idp.issuer}/authorize?${params}`)).text()
  const interaction = /name="interaction" value="([^"]+)"/.exec(page)?.[1] ?? ""
  const back = await fetch(`${idp.issuer}/login`, {
    method: "POST",
    body: new URLSearchParams({ interaction, account }),
    redirect: "manual",
  })
  const location = new URL(back.headers.get("location") ?? "")
  expect([location.origin + location.pathname, location.searchParams.get("state"), location.searchParams.get("iss")]).toEqual([
    "http://127.0.0.1:9/cb",
    "st",
    idp.issuer,
  ])
  return location.searchParams.get("code") ?? ""
}

function exchange(code: string, overrides: Record<string, string> = {}): Promise<Response> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: "http://127.0.0.1:9/cb",
    code_verifier: verifier,
    client_id: "test-client",
    client_secret: "s3cret",
    ...overrides,
  })
  return fetch(`${idp.issuer}/token`, { method: "POST", body })
}

describe("createTestIdP", () => {
  it("publishes a discovery document naming its endpoints under its issuer", async () => {
    const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>
    expect(discovery).toMatchObject({
      issuer: idp.issuer,
      token_endpoint: `${idp.issuer}/token`,
      jwks_uri: `${idp.issuer}/jwks`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    })
  })

  it("exchanges a code once, for an ID token and an access token that reads userinfo", async () => {
    const code = await codeFor("alice")
    const tokens = (await (await exchange(code)).json()) as { access_token: string; id_token: string }
    expect(tokens.id_token.split(".")).toHaveLength(3)
    const info = await fetch(`${idp.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(await info.json()).toEqual({ sub: "alice", email: "alice@example.test", name: "Alice", email_verified: true })
    const replay = await exchange(code)
    expect([replay.status, await replay.json()]).toEqual([400, { error: "invalid_grant" }])
  })

  it("refuses a wrong PKCE verifier, another redirect URI and a wrong client secret", async () => {
    const wrongVerifier = await exchange(await codeFor("bob"), { code_verifier: `${verifier}x` })
    expect([wrongVerifier.status, await wrongVerifier.json()]).toEqual([400, { error: "invalid_grant" }])
    const wrongRedirect = await exchange(await codeFor("bob"), { redirect_uri: "http://127.0.0.1:9/other" })
    expect([wrongRedirect.status, await wrongRedirect.json()]).toEqual([400, { error: "invalid_grant" }])
    const wrongSecret = await exchange(await codeFor("bob"), { client_secret: "guess" })
    expect([wrongSecret.status, await wrongSecret.json()]).toEqual([401, { error: "invalid_client" }])
  })

  it("answers an unregistered redirect URI itself, without redirecting to it", async () => {
    const params = new URLSearchParams({
      client_id: "test-client",
      redirect_uri: "http://evil.test/cb",
      response_type: "code",
      scope: "openid",
    })
    const response = await fetch(`${idp.issuer}/authorize?${params}`, { redirect: "manual" })
    expect([response.status, response.headers.get("location")]).toEqual([400, null])
  })
})

describe("its records of logins, codes and tokens are bounded", () => {
  it("a full map sweeps its expired entries first", () => {
    const map = new Map<string, { expires: number }>()
    for (let i = 0; i < 10; i++) putExpiring(map, `old-${i}`, { expires: i < 5 ? 100 : 10_000 }, 0, 10)
    putExpiring(map, "new", { expires: 10_000 }, 500, 10)
    expect([...map.keys()]).toEqual(["old-5", "old-6", "old-7", "old-8", "old-9", "new"])
  })

  it("full of live entries: the oldest tenth makes room, so the map stays within max after max + k writes", () => {
    const map = new Map<string, { expires: number }>()
    for (let i = 0; i < 125; i++) {
      putExpiring(map, `k-${i}`, { expires: 10_000 }, 0, 100)
      expect(map.size).toBeLessThanOrEqual(100)
    }
    expect(map.has("k-0")).toBe(false)
    expect(map.has("k-124")).toBe(true)
  })
})
