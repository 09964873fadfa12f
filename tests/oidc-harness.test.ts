/**
 * Proves the real OpenID Provider harness (tests/support/oidc-provider.ts) with a hand-written
 * oauth4webapi client: discovery → authorization URL (PKCE S256 + state + nonce) → scripted login/consent →
 * response validation → code grant → ID token claims → userinfo; plus form_post, deny, token faults,
 * client authentication bookkeeping, RFC 9207 `iss` on/off, refresh tokens with rotation, and closedPort().
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as oauth from "oauth4webapi"
import { closedPort, startOidcProvider } from "./support/oidc-provider.js"
import type { AuthorizeResult, OidcServer } from "./support/oidc-provider.js"

const TIMEOUT_MS = 5_000
const signal = () => AbortSignal.timeout(TIMEOUT_MS)
const insecure = { [oauth.allowInsecureRequests]: true } as const

const REDIRECT_URI = "http://127.0.0.1:3999/api/auth/callback/test-oidc"

const CLIENTS = {
  basic: { client_id: "basic-client", client_secret: "basic-secret-0123456789", token_endpoint_auth_method: "client_secret_basic" },
  post: { client_id: "post-client", client_secret: "post-secret-0123456789", token_endpoint_auth_method: "client_secret_post" },
  public: { client_id: "public-client", token_endpoint_auth_method: "none" },
} as const

function testClients() {
  return Object.values(CLIENTS).map((c) => ({ ...c, redirect_uris: [REDIRECT_URI] }))
}

async function discover(server: OidcServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(server.issuer)
  const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", signal: signal(), ...insecure })
  return oauth.processDiscoveryResponse(issuer, response)
}

function clientAuth(kind: keyof typeof CLIENTS): oauth.ClientAuth {
  if (kind === "basic") return oauth.ClientSecretBasic(CLIENTS.basic.client_secret)
  if (kind === "post") return oauth.ClientSecretPost(CLIENTS.post.client_secret)
  return oauth.None()
}

interface Flow {
  url: URL
  state: string
  nonce: string
  codeVerifier: string
}

async function authorizationUrl(
  as: oauth.AuthorizationServer,
  clientId: string,
  extra: Record<string, string> = {},
  { pkce = true }: { pkce?: boolean } = {},
): Promise<Flow> {
  const codeVerifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const nonce = oauth.generateRandomNonce()
  const url = new URL(as.authorization_endpoint!)
  url.searchParams.set("client_id", clientId)
  url.searchParams.set("redirect_uri", REDIRECT_URI)
  url.searchParams.set("response_type", "code")
  url.searchParams.set("scope", "openid profile email")
  url.searchParams.set("state", state)
  url.searchParams.set("nonce", nonce)
  if (pkce) {
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier))
    url.searchParams.set("code_challenge_method", "S256")
  }
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v)
  return { url, state, nonce, codeVerifier }
}

function callbackParams(result: AuthorizeResult): URLSearchParams {
  if (result.kind === "redirect") {
    const url = new URL(result.url)
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URI)
    return url.searchParams
  }
  expect(result.action).toBe(REDIRECT_URI)
  return new URLSearchParams(result.fields)
}

async function redeem(
  as: oauth.AuthorizationServer,
  kind: keyof typeof CLIENTS,
  params: URLSearchParams,
  flow: Flow,
  requestSignal: AbortSignal = signal(),
) {
  const client: oauth.Client = { client_id: CLIENTS[kind].client_id }
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth(kind), params, REDIRECT_URI, flow.codeVerifier, {
    signal: requestSignal,
    ...insecure,
  })
  return { client, response }
}

describe("oidc harness: default provider (iss on)", () => {
  let server: OidcServer
  let as: oauth.AuthorizationServer

  beforeAll(async () => {
    server = await startOidcProvider({ clients: testClients() })
    as = await discover(server)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("listens on 127.0.0.1 and publishes consistent discovery", () => {
    expect(server.issuer).toBe(`http://127.0.0.1:${server.port}`)
    expect(as.issuer).toBe(server.issuer)
    expect(as.authorization_response_iss_parameter_supported).toBe(true)
    expect(as.code_challenge_methods_supported).toEqual(["S256"])
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["openid", "profile", "email"]))
    expect(as.response_modes_supported).toContain("form_post")
    expect(as.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["client_secret_basic", "client_secret_post", "none"]))
    expect(server.accounts.length).toBeGreaterThan(0)
  })

  it("runs the full code flow (client_secret_basic): claims in ID token and userinfo", async () => {
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const result = await server.authorize(flow.url.href)
    expect(result.kind).toBe("redirect")
    const params = callbackParams(result)
    expect(params.get("iss")).toBe(server.issuer)

    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    const validated = oauth.validateAuthResponse(as, client, params, flow.state)
    expect(validated.get("code")).toBeTruthy()

    const before = server.tokenRequests.count
    const { response } = await redeem(as, "basic", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce, requireIdToken: true })
    expect(server.tokenRequests.count).toBe(before + 1)
    expect(server.tokenRequests.lastAuth).toBe("basic")
    expect(server.tokenRequests.lastBody.grant_type).toBe("authorization_code")
    expect(server.tokenRequests.lastBody.code_verifier).toBe(flow.codeVerifier)
    expect(server.tokenRequests.lastBody.client_secret).toBeUndefined()

    const alice = server.accounts[0]!
    const claims = oauth.getValidatedIdTokenClaims(tokens)!
    expect(claims).toMatchObject({
      iss: server.issuer,
      aud: CLIENTS.basic.client_id,
      sub: alice.sub,
      nonce: flow.nonce,
      email: alice.email,
      email_verified: true,
      name: alice.name,
      picture: alice.picture,
    })
    expect(tokens.token_type.toLowerCase()).toBe("bearer")

    const userinfoResponse = await oauth.userInfoRequest(as, client, tokens.access_token, { signal: signal(), ...insecure })
    const userinfo = await oauth.processUserInfoResponse(as, client, claims.sub, userinfoResponse)
    expect(userinfo).toMatchObject({ sub: alice.sub, email: alice.email, email_verified: true, name: alice.name, picture: alice.picture })

    // The code is single use: a replay is rejected by the provider.
    const replay = await redeem(as, "basic", validated, flow)
    await expect(oauth.processAuthorizationCodeResponse(as, client, replay.response)).rejects.toMatchObject({
      error: "invalid_grant",
    })
  })

  it("logs in as another account by email, and records client_secret_post", async () => {
    const flow = await authorizationUrl(as, CLIENTS.post.client_id)
    const params = callbackParams(await server.authorize(flow.url.href, { account: "bob@example.test" }))
    const client: oauth.Client = { client_id: CLIENTS.post.client_id }
    const validated = oauth.validateAuthResponse(as, client, params, flow.state)
    const { response } = await redeem(as, "post", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce })
    expect(server.tokenRequests.lastAuth).toBe("post")
    expect(server.tokenRequests.lastBody.client_secret).toBe(CLIENTS.post.client_secret)
    expect(server.tokenRequests.lastBody.client_id).toBe(CLIENTS.post.client_id)
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({
      sub: "user-bob",
      email: "bob@example.test",
      email_verified: false,
      name: "Bob Example",
    })
  })

  it("public client: PKCE is required, and the token request is recorded as auth none", async () => {
    const withoutPkce = await authorizationUrl(as, CLIENTS.public.client_id, {}, { pkce: false })
    const rejected = callbackParams(await server.authorize(withoutPkce.url.href))
    expect(rejected.get("error")).toBe("invalid_request")
    expect(rejected.get("error_description")).toMatch(/PKCE/)

    const flow = await authorizationUrl(as, CLIENTS.public.client_id)
    const client: oauth.Client = { client_id: CLIENTS.public.client_id, token_endpoint_auth_method: "none" }
    const validated = oauth.validateAuthResponse(as, client, callbackParams(await server.authorize(flow.url.href)), flow.state)
    const { response } = await redeem(as, "public", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce })
    expect(tokens.access_token).toBeTruthy()
    expect(server.tokenRequests.lastAuth).toBe("none")
    expect(server.tokenRequests.lastBody.client_id).toBe(CLIENTS.public.client_id)
  })

  it("response_mode=form_post returns the auto-submit form fields", async () => {
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id, { response_mode: "form_post" })
    const result = await server.authorize(flow.url.href)
    expect(result.kind).toBe("form_post")
    if (result.kind !== "form_post") return
    expect(result.action).toBe(REDIRECT_URI)
    expect(Object.keys(result.fields).sort()).toEqual(["code", "iss", "state"])
    expect(result.fields.state).toBe(flow.state)
    expect(result.fields.iss).toBe(server.issuer)

    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    const validated = oauth.validateAuthResponse(as, client, new URLSearchParams(result.fields), flow.state)
    const { response } = await redeem(as, "basic", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce })
    expect(oauth.getValidatedIdTokenClaims(tokens)?.email).toBe(server.accounts[0]!.email)
  })

  it("deny: the provider redirects back with error=access_denied", async () => {
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const result = await server.authorize(flow.url.href, { deny: true })
    const params = callbackParams(result)
    expect(params.get("error")).toBe("access_denied")
    expect(params.get("error_description")).toBe("denied by test")
    expect(params.get("state")).toBe(flow.state)
    expect(params.get("iss")).toBe(server.issuer)
    expect(params.get("code")).toBeNull()
    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    expect(() => oauth.validateAuthResponse(as, client, params, flow.state)).toThrow(oauth.AuthorizationResponseError)

    const formPost = await authorizationUrl(as, CLIENTS.basic.client_id, { response_mode: "form_post" })
    const denied = await server.authorize(formPost.url.href, { deny: true })
    expect(denied.kind).toBe("form_post")
    expect(callbackParams(denied).get("error")).toBe("access_denied")
  })

  it("token faults: 500, malformed, slow; then normal again with the same (unconsumed) code", async () => {
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    const validated = oauth.validateAuthResponse(as, client, callbackParams(await server.authorize(flow.url.href)), flow.state)
    const start = server.tokenRequests.count

    try {
      server.setTokenFault("500")
      const failed = await redeem(as, "basic", validated, flow)
      expect(failed.response.status).toBe(500)
      expect(failed.response.headers.get("content-type")).toMatch(/^text\/plain/)
      await expect(oauth.processAuthorizationCodeResponse(as, client, failed.response)).rejects.toMatchObject({
        code: oauth.RESPONSE_IS_NOT_CONFORM,
      })
      expect(server.tokenRequests.lastAuth).toBe("basic")
      expect(server.tokenRequests.lastBody.code).toBe(validated.get("code"))

      server.setTokenFault("malformed")
      const malformed = await redeem(as, "basic", validated, flow)
      expect(malformed.response.status).toBe(200)
      await expect(oauth.processAuthorizationCodeResponse(as, client, malformed.response)).rejects.toMatchObject({
        code: oauth.PARSE_ERROR,
      })

      server.setTokenFault("slow")
      const t0 = Date.now()
      await expect(redeem(as, "basic", validated, flow, AbortSignal.timeout(300))).rejects.toMatchObject({ name: "TimeoutError" })
      expect(Date.now() - t0).toBeLessThan(3_000)
    } finally {
      server.setTokenFault(null)
    }
    expect(server.tokenRequests.count).toBe(start + 3)

    const { response } = await redeem(as, "basic", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce })
    expect(tokens.access_token).toBeTruthy()
    expect(server.tokenRequests.count).toBe(start + 4)
  })
})

describe("oidc harness: issParameter false", () => {
  let server: OidcServer
  let as: oauth.AuthorizationServer

  beforeAll(async () => {
    server = await startOidcProvider({ clients: testClients(), issParameter: false, keepAliveTimeoutMs: 5_000 })
    as = await discover(server)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("keeps idle connections as long as keepAliveTimeoutMs says (the default provider: 1 s)", async () => {
    const announced = async (s: OidcServer) =>
      (await fetch(`${s.issuer}/.well-known/openid-configuration`, { signal: signal() })).headers.get("keep-alive")
    expect(await announced(server)).toBe("timeout=5")
    const other = await startOidcProvider({ clients: testClients() })
    try {
      expect(await announced(other)).toBe("timeout=1")
    } finally {
      await other.stop()
    }
  })

  it("does not advertise or send iss, and the client flow still validates", async () => {
    expect(as.authorization_response_iss_parameter_supported).toBeUndefined()

    const flow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const params = callbackParams(await server.authorize(flow.url.href))
    expect(params.has("iss")).toBe(false)
    expect(params.get("code")).toBeTruthy()
    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    const validated = oauth.validateAuthResponse(as, client, params, flow.state)
    const { response } = await redeem(as, "basic", validated, flow)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce })
    expect(oauth.getValidatedIdTokenClaims(tokens)?.iss).toBe(server.issuer)

    // A client that insists on RFC 9207 (as if the OP advertised it) rejects the response.
    const strict = { ...as, authorization_response_iss_parameter_supported: true }
    expect(() => oauth.validateAuthResponse(strict, client, params, flow.state)).toThrow(/iss/)
  })

  it("form_post and error responses carry no iss either", async () => {
    const formPost = await authorizationUrl(as, CLIENTS.basic.client_id, { response_mode: "form_post" })
    const result = await server.authorize(formPost.url.href)
    expect(result.kind).toBe("form_post")
    if (result.kind === "form_post") expect(Object.keys(result.fields).sort()).toEqual(["code", "state"])

    const denyFlow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const denied = callbackParams(await server.authorize(denyFlow.url.href, { deny: true }))
    expect(denied.get("error")).toBe("access_denied")
    expect(denied.has("iss")).toBe(false)
  })
})

describe("oidc harness: refresh tokens (short-lived access tokens, rotation on)", () => {
  let server: OidcServer
  let as: oauth.AuthorizationServer

  beforeAll(async () => {
    server = await startOidcProvider({ clients: testClients(), accessTokenTtl: 30, rotateRefreshTokens: true })
    as = await discover(server)
  })
  afterAll(async () => {
    await server?.stop()
  })

  async function signIn(extra: Record<string, string>) {
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id, extra)
    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    const validated = oauth.validateAuthResponse(as, client, callbackParams(await server.authorize(flow.url.href)), flow.state)
    const { response } = await redeem(as, "basic", validated, flow)
    return { client, tokens: await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce }) }
  }

  it("no refresh token without offline_access and prompt=consent", async () => {
    const { tokens } = await signIn({})
    expect(tokens.refresh_token).toBeUndefined()
    expect(tokens.expires_in).toBe(30)
  })

  it("offline_access + prompt=consent: a refresh token; each refresh rotates it, counted by grant; a used one is refused", async () => {
    const { client, tokens } = await signIn({ scope: "openid profile email offline_access", prompt: "consent" })
    expect(tokens.refresh_token).toEqual(expect.any(String))
    const refresh = (token: string) =>
      oauth.refreshTokenGrantRequest(as, client, clientAuth("basic"), token, { signal: signal(), ...insecure })
    const before = server.tokenRequests.grants.refresh_token ?? 0
    const next = await oauth.processRefreshTokenResponse(as, client, await refresh(tokens.refresh_token!))
    expect(next.refresh_token).toEqual(expect.any(String))
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    expect(next.access_token).not.toBe(tokens.access_token)
    expect(server.tokenRequests.grants.refresh_token).toBe(before + 1)
    await expect(oauth.processRefreshTokenResponse(as, client, await refresh(tokens.refresh_token!))).rejects.toMatchObject({
      error: "invalid_grant",
    })
    expect(server.tokenRequests.grants.refresh_token).toBe(before + 2)
  })
})

describe("oidc harness: lifecycle", () => {
  it("closedPort() refuses connections", async () => {
    const port = await closedPort()
    expect(port).toBeGreaterThan(0)
    const error = await fetch(`http://127.0.0.1:${port}/`, { signal: signal() }).then(
      () => null,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    )
    expect(error).not.toBeNull()
    expect(error?.cause?.code).toBe("ECONNREFUSED")
  })

  it("stop() ends an in-flight 'slow' token request promptly and closes the port", async () => {
    const server = await startOidcProvider({ clients: testClients() })
    const as = await discover(server)
    const flow = await authorizationUrl(as, CLIENTS.basic.client_id)
    const client: oauth.Client = { client_id: CLIENTS.basic.client_id }
    // oauth4webapi only accepts callback parameters that came out of validateAuthResponse().
    const params = oauth.validateAuthResponse(as, client, callbackParams(await server.authorize(flow.url.href)), flow.state)
    server.setTokenFault("slow")
    const pending = redeem(as, "basic", params, flow).then(
      () => "answered",
      (e: unknown) => (e as Error).name,
    )
    const deadline = Date.now() + TIMEOUT_MS
    while (server.tokenRequests.count === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    expect(server.tokenRequests.count).toBe(1)

    const t0 = Date.now()
    await server.stop()
    const outcome = await pending
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect(outcome).not.toBe("answered")
    expect(outcome).not.toBe("TimeoutError")

    const after = await fetch(`${server.issuer}/.well-known/openid-configuration`, { signal: signal() }).then(
      () => null,
      (e: unknown) => (e as { cause?: { code?: string } }).cause?.code,
    )
    expect(after).toBe("ECONNREFUSED")
    await server.stop() // idempotent
  })
})
