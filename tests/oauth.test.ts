/**
 * OAuth 2 and OpenID Connect sign-in against a real OpenID provider (oidc-provider on 127.0.0.1),
 * driven by scripted clients with cookie jars: the browser side is `AuthClient` (in-process `Auth`),
 * the provider side logs in and consents over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { type AuthConfig, customFetch } from "../src/index.js"
import { getToken } from "../src/jwt.js"
import Apple from "../src/providers/apple.js"
import Google from "../src/providers/google.js"
import Okta from "../src/providers/okta.js"
import { pkceChallenge } from "../src/runtime/engine/effects/oauth.js"
import { authorizationUrl } from "../src/runtime/engine/effects/oauth-authorize.js"
import { unsealEnvelope } from "../src/runtime/engine/store.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies, tamperJwe } from "./helpers.js"
import { type OidcServer, closedPort, startOidcProvider } from "./support/oidc-provider.js"

const PROXY = "http://proxy.test"
const ids = ["keycloak", "idp", "plain", "post", "formpost", "other", "google", "okta", "apple", "dead", "slow"]
let server: OidcServer

beforeAll(async () => {
  const redirect_uris = [...ids.map((id) => `${ORIGIN}/auth/callback/${id}`), `${PROXY}/auth/callback/idp`]
  server = await startOidcProvider({
    clients: [
      { client_id: "basic-client", client_secret: "basic-secret", redirect_uris },
      { client_id: "post-client", client_secret: "post-secret", redirect_uris, token_endpoint_auth_method: "client_secret_post" },
    ],
  })
})
afterAll(() => server?.stop())

function oidc(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id.toUpperCase(),
    type: "oidc" as const,
    issuer: server.issuer,
    clientId: "basic-client",
    clientSecret: "basic-secret",
    ...extra,
  }
}

function makeClient(providers: unknown[], extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: providers as AuthConfig["providers"],
    ...extra,
  }
  return { client: new AuthClient(config), log }
}

/** POST /signin/:id → the authorization URL (303) and the flow cookie. */
async function startSignIn(client: AuthClient, id: string, form: Record<string, string> = {}, query = "") {
  const csrfToken = await client.csrf()
  const res = await client.send(`/auth/signin/${id}${query}`, { form: { csrfToken, ...form } })
  expect(res.status).toBe(303)
  return { res, location: res.headers.get("location") as string }
}

/** The provider's answer, delivered to our callback like a browser would (GET or form_post). */
async function deliver(client: AuthClient, answer: Awaited<ReturnType<OidcServer["authorize"]>>) {
  if (answer.kind === "redirect") {
    const url = new URL(answer.url)
    expect(url.origin).toBe(ORIGIN)
    return client.send(`${url.pathname}${url.search}`)
  }
  const action = new URL(answer.action)
  return client.send(action.pathname, { form: answer.fields })
}

async function signInVia(client: AuthClient, id: string, options: { account?: string; form?: Record<string, string> } = {}) {
  const { location } = await startSignIn(client, id, options.form ?? { callbackUrl: "/dashboard" })
  const answer = await server.authorize(location, options.account ? { account: options.account } : {})
  return { location, answer, res: await deliver(client, answer) }
}

async function sessionOf(client: AuthClient) {
  return (await (await client.send("/auth/session")).json()) as { user: { name: string; email: string; image?: string } } | null
}

const flowCookie = (id: string) => `authchart.flow.${id}`

describe("sign-in against a real OpenID provider", () => {
  it("OIDC with discovery: PKCE S256, state, nonce; session shows the user; flow cookie cleared", async () => {
    const { client } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp", { callbackUrl: "/dashboard" })
    const authz = new URL(location)
    expect(authz.origin).toBe(server.issuer)
    expect(authz.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authz.searchParams.get("state")).toMatch(/^[\w-]{20,}$/)
    expect(authz.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/)
    expect(authz.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/idp`)
    expect(authz.searchParams.get("scope")).toBe("openid profile email")
    expect(location).not.toContain("code_verifier")
    // the flow cookie keeps the checks, not the authorization URL the sign-in POST answered with
    const envelope = await unsealEnvelope(client.jar.get(flowCookie("idp")) ?? "", [SECRET], flowCookie("idp"))
    expect(envelope.snapshot).toMatchObject({ context: { reply: null, pending: { state: authz.searchParams.get("state") } } })
    expect(JSON.stringify(envelope)).not.toContain(authz.searchParams.get("code_challenge"))

    const res = await deliver(client, await server.authorize(location))
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect(client.jar.get(flowCookie("idp"))).toBeUndefined()
    expect(await sessionOf(client)).toMatchObject({ user: { name: "Alice Example", email: "alice@example.test" } })
  })

  it("plain OAuth 2 with explicit endpoints and userinfo read with the access token", async () => {
    const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>
    const plain = {
      id: "plain",
      name: "Plain",
      type: "oauth",
      issuer: server.issuer,
      authorization: { url: discovery.authorization_endpoint, params: { scope: "openid email profile" } },
      token: discovery.token_endpoint,
      userinfo: discovery.userinfo_endpoint,
      clientId: "basic-client",
      clientSecret: "basic-secret",
    }
    const { client } = makeClient([plain])
    const { location, res } = await signInVia(client, "plain")
    expect(new URL(location).searchParams.get("nonce")).toBeNull()
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect(server.tokenRequests.lastAuth).toBe("basic")
    expect(await sessionOf(client)).toMatchObject({ user: { email: "alice@example.test" } })
  })

  it("client_secret_post", async () => {
    const { client } = makeClient([
      oidc("post", { clientId: "post-client", clientSecret: "post-secret", client: { token_endpoint_auth_method: "client_secret_post" } }),
    ])
    const { res } = await signInVia(client, "post", { account: "bob@example.test" })
    expect(res.status).toBe(302)
    expect(server.tokenRequests.lastAuth).toBe("post")
    expect(server.tokenRequests.lastBody.code_verifier).toMatch(/^[\w-]{43,}$/)
    expect((await sessionOf(client))?.user.email).toBe("bob@example.test")
  })

  it("response_mode=form_post: the flow cookie is SameSite=None; Secure and the POST callback completes", async () => {
    const { client } = makeClient([oidc("formpost", { authorization: { params: { response_mode: "form_post" } } })])
    const { res: start } = await startSignIn(client, "formpost", { callbackUrl: "/dashboard" })
    const cookie = setCookies(start).find((c) => c.name === flowCookie("formpost"))
    expect(cookie?.attributes).toMatchObject({ samesite: "None", secure: true, httponly: true })
    const answer = await server.authorize(start.headers.get("location") as string)
    expect(answer.kind).toBe("form_post")
    const res = await deliver(client, answer)
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect(await sessionOf(client)).not.toBeNull()
  })

  it("without an adapter the JWT sub is stable per provider account", async () => {
    const subs: unknown[] = []
    for (let i = 0; i < 2; i++) {
      const { client } = makeClient([oidc("idp")])
      await signInVia(client, "idp")
      const req = new Request(ORIGIN, { headers: { cookie: `authjs.session-token=${client.jar.get("authjs.session-token")}` } })
      subs.push((await getToken({ req, secret: SECRET }))?.sub)
    }
    expect(subs[0]).toBeTruthy()
    expect(subs[0]).toBe(subs[1])
  })

  it.each([
    ["google", () => Google({ clientId: "basic-client", clientSecret: "basic-secret", issuer: server.issuer })],
    ["okta", () => Okta({ clientId: "basic-client", clientSecret: "basic-secret", issuer: server.issuer })],
    [
      "apple",
      () =>
        Apple({
          clientId: "post-client",
          clientSecret: "post-secret",
          issuer: server.issuer,
          authorization: { url: `${server.issuer}/auth`, params: { scope: "openid email profile", response_mode: "form_post" } },
        }),
    ],
  ])("the %s preset's mechanics work against the local provider", async (id, make) => {
    const { client } = makeClient([make()])
    const { res } = await signInVia(client, id)
    expect([302, 303]).toContain(res.status)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })
})

describe("compatibility and transport policy", () => {
  it("the PKCE S256 challenge is RFC 7636's (Appendix B vector)", () => {
    expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  })

  it("an Auth.js preset object (@auth/core/providers/keycloak) works unchanged", async () => {
    const { default: Keycloak } = await import("@auth/core/providers/keycloak")
    const { client } = makeClient([Keycloak({ clientId: "basic-client", clientSecret: "basic-secret", issuer: server.issuer })])
    const { res } = await signInVia(client, "keycloak")
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  /** A fetch that records the URLs it was asked for, then asks the network. */
  const network = globalThis.fetch
  function recording() {
    const urls: string[] = []
    const fetcher = (url: string, init: RequestInit) => {
      urls.push(url)
      return network(url, init)
    }
    return { urls, fetcher }
  }
  const tokenUrl = () => `${server.issuer}/token`

  it("a provider's own fetch ([customFetch], authchart's symbol or @auth/core's) carries discovery, token and userinfo", async () => {
    const { customFetch: authjsCustomFetch } = await import("@auth/core")
    for (const symbol of [customFetch, authjsCustomFetch]) {
      const { urls, fetcher } = recording()
      const { client } = makeClient([oidc("idp", { [symbol]: fetcher })])
      const { res } = await signInVia(client, "idp")
      expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
      expect(urls).toContain(`${server.issuer}/.well-known/openid-configuration`)
      expect(urls).toContain(tokenUrl())
      expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
    }
  })

  it("discovery is fetched once an hour per config; a newer document is used once the old one expires", async () => {
    const discoveryUrl = `${server.issuer}/.well-known/openid-configuration`
    let fetched = 0
    const fetcher = async (url: string, init: RequestInit) => {
      if (url !== discoveryUrl) return network(url, init)
      const document = (await (await network(url, init)).json()) as Record<string, unknown>
      fetched++
      // the second document moves the authorization endpoint (a query parameter of its own)
      if (fetched > 1) document.authorization_endpoint = `${document.authorization_endpoint}?version=2`
      return Response.json(document)
    }
    const { client } = makeClient([oidc("idp", { [customFetch]: fetcher })])
    const first = (await startSignIn(client, "idp")).location
    const second = (await startSignIn(client, "idp")).location
    expect(fetched).toBe(1)
    expect(new URL(second).searchParams.has("version")).toBe(false)
    expect(new URL(first).pathname).toBe(new URL(second).pathname)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61 * 60 * 1000 })
    try {
      const later = (await startSignIn(client, "idp")).location
      expect(fetched).toBe(2)
      expect(new URL(later).searchParams.get("version")).toBe("2")
    } finally {
      vi.useRealTimers()
    }
  })

  it("a provider's own fetch is still cut off by the provider timeout", async () => {
    const hang = (url: string, init: RequestInit) =>
      url.endsWith("/token")
        ? new Promise<Response>((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)))
        : fetch(url, init)
    const { client, log } = makeClient([oidc("slow", { timeout: 300, [customFetch]: hang })])
    const { location } = await startSignIn(client, "slow")
    const res = await deliver(client, await server.authorize(location))
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["CallbackRouteError"])
  })

  it("an application that replaces the global fetch (a mock, a proxy) gets the token request through it", async () => {
    const { urls, fetcher } = recording()
    const { client } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp", { callbackUrl: "/dashboard" })
    const answer = await server.authorize(location)
    vi.stubGlobal("fetch", fetcher)
    try {
      const res = await deliver(client, answer)
      expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    } finally {
      vi.unstubAllGlobals()
    }
    expect(urls).toContain(tokenUrl())
  })

  it("token.conform mends the token answer before it is read (Auth.js' hook, e.g. Twitch)", async () => {
    const seen: unknown[] = []
    const conform = async (response: Response) => {
      seen.push(await response.json())
      return Response.json({ error: "invalid_grant", error_description: "refused by conform" }, { status: 400 })
    }
    const { client, log } = makeClient([oidc("idp", { token: { conform } })])
    const { res } = await signInVia(client, "idp")
    expect(seen).toEqual([expect.objectContaining({ access_token: expect.any(String), id_token: expect.any(String) })])
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["CallbackRouteError"])
  })

  it("plain http: endpoints are refused on a non-loopback host unless the provider opts in", async () => {
    const { client, log } = makeClient([oidc("idp", { issuer: "http://idp.example.test" })])
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signin/idp", { form: { csrfToken } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=Configuration`)
    const error = log.errors[0] as { type?: string; cause?: { err?: { code?: string } } }
    expect(error.type).toBe("OAuthSignInError")
    expect(error.cause?.err?.code).toBe("OAUTH_HTTP_REQUEST_FORBIDDEN")
  })
})

describe("redirect proxy (AUTH_REDIRECT_PROXY_URL)", () => {
  it("a preview deployment signs in through the proxy's registered redirect URI", async () => {
    const config = (origin: string) => {
      const log = captureLogger()
      const c: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        logger: log.logger,
        redirectProxyUrl: `${PROXY}/auth`,
        providers: [oidc("idp")] as AuthConfig["providers"],
      }
      return new AuthClient(c, origin)
    }
    const preview = config("http://preview.test")
    const proxy = config(PROXY)
    const csrfToken = await preview.csrf()
    const start = await preview.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/after" } })
    const authz = new URL(start.headers.get("location") as string)
    expect(authz.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/idp`)
    const answer = (await server.authorize(authz.href)) as { url: string }
    const atProxy = new URL(answer.url)
    expect(atProxy.origin).toBe(PROXY)
    const hop = await proxy.send(`${atProxy.pathname}${atProxy.search}`)
    expect(hop.status).toBe(302)
    const forwarded = new URL(hop.headers.get("location") as string)
    expect(forwarded.origin).toBe("http://preview.test")
    expect(forwarded.searchParams.get("code")).toBe(atProxy.searchParams.get("code"))
    expect(setCookies(hop)).toHaveLength(0)
    const done = await preview.send(`${forwarded.pathname}${forwarded.search}`)
    expect(done.headers.get("location")).toBe("http://preview.test/after")
    expect(((await (await preview.send("/auth/session")).json()) as { user: { email: string } }).user.email).toBe("alice@example.test")
  })

  it("the proxy does not forward a state it did not seal", async () => {
    const log = captureLogger()
    const proxy = new AuthClient(
      {
        secret: SECRET,
        trustHost: true,
        logger: log.logger,
        redirectProxyUrl: `${PROXY}/auth`,
        providers: [oidc("idp")] as AuthConfig["providers"],
      },
      PROXY,
    )
    const res = await proxy.send("/auth/callback/idp?code=x&state=a.b.c.d.e")
    expect(res.headers.get("location")).toBe(`${PROXY}/auth/signin?error=FlowStateError`)
  })
})

describe("bad input ends in the documented error, flow state cleared, no session", () => {
  async function expectFailure(client: AuthClient, res: Response, location: string, id = "idp") {
    expect(res.headers.get("location")).toBe(location)
    expect(client.jar.get(flowCookie(id))).toBeUndefined()
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  }

  async function callbackWith(client: AuthClient, answer: { kind: string; url?: string }, edit: (p: URLSearchParams) => void) {
    const url = new URL(answer.url as string)
    edit(url.searchParams)
    return client.send(`${url.pathname}?${url.searchParams}`)
  }

  const callbackEdits = [
    ["missing state", "InvalidCheck", (p: URLSearchParams) => p.delete("state")],
    ["mismatched state", "InvalidCheck", (p: URLSearchParams) => p.set("state", "x".repeat(43))],
    ["wrong iss (mix-up)", "InvalidCheck", (p: URLSearchParams) => p.set("iss", "http://127.0.0.1:1/evil")],
    ["missing iss where the provider announces RFC 9207", "InvalidCheck", (p: URLSearchParams) => p.delete("iss")],
    ["a JARM response parameter", "InvalidCheck", (p: URLSearchParams) => p.set("response", "eyJ.x.y")],
    ["an implicit-flow id_token", "CallbackRouteError", (p: URLSearchParams) => p.set("id_token", "eyJ.x.y")],
    ["an implicit-flow access token", "CallbackRouteError", (p: URLSearchParams) => p.set("token", "")],
    ["no code", "InvalidCheck", (p: URLSearchParams) => p.delete("code")],
  ] as const

  it.each(callbackEdits)("%s → error=Configuration (%s)", async (_, type, edit) => {
    const { client, log } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    const res = await callbackWith(client, await server.authorize(location), edit)
    await expectFailure(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual([type])
  })

  it.each(callbackEdits)("%s, on a provider's later sign-in (its server and client cached) → %s", async (_, type, edit) => {
    const { client, log } = makeClient([oidc("idp")])
    expect((await signInVia(client, "idp")).res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    client.jar.cookies.delete("authjs.session-token")
    const { location } = await startSignIn(client, "idp")
    const res = await callbackWith(client, await server.authorize(location), edit)
    await expectFailure(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual([type])
  })

  it("nonce mismatch → InvalidCheck, also on a provider's later sign-ins (its server and client cached)", async () => {
    const { client, log } = makeClient([oidc("idp")])
    expect((await signInVia(client, "idp")).res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    client.jar.cookies.delete("authjs.session-token")
    const { location } = await startSignIn(client, "idp")
    const tampered = new URL(location)
    tampered.searchParams.set("nonce", "another-nonce-value-0123456789")
    const res = await deliver(client, await server.authorize(tampered.href))
    await expectFailure(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["InvalidCheck"])
  })

  it("error=access_denied from the provider → /signin?error=OAuthCallbackError", async () => {
    const { client, log } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    const res = await deliver(client, await server.authorize(location, { deny: true }))
    await expectFailure(client, res, `${ORIGIN}/auth/signin?error=OAuthCallbackError`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["OAuthCallbackError"])
  })

  it("replaying a completed callback: without the flow cookie → FlowStateError; with a copy → the code is refused", async () => {
    const { client } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    const sealed = client.jar.get(flowCookie("idp")) as string
    const answer = await server.authorize(location)
    expect((await deliver(client, answer)).status).toBe(302)
    const attacker = makeClient([oidc("idp")]).client
    const replay = await deliver(attacker, answer)
    expect(replay.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    attacker.jar.cookies.set(flowCookie("idp"), sealed)
    const replayWithCookie = await deliver(attacker, answer)
    await expectFailure(attacker, replayWithCookie, `${ORIGIN}/auth/error?error=Configuration`)
  })

  it("a flow cookie made for provider A presented at provider B's callback → FlowStateError", async () => {
    const { client } = makeClient([oidc("idp"), oidc("other")])
    const { location } = await startSignIn(client, "idp")
    const answer = await server.authorize(location)
    client.jar.cookies.set(flowCookie("other"), client.jar.get(flowCookie("idp")) as string)
    const url = new URL((answer as { url: string }).url)
    const res = await client.send(`/auth/callback/other${url.search}`)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(client.jar.get(flowCookie("other"))).toBeUndefined()
  })

  it("a tampered flow cookie → FlowStateError", async () => {
    const { client } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    client.jar.cookies.set(flowCookie("idp"), tamperJwe(client.jar.get(flowCookie("idp")) as string))
    const res = await deliver(client, await server.authorize(location))
    await expectFailure(client, res, `${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("an expired flow (more than 15 minutes) → FlowStateError", async () => {
    const { client } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    const answer = await server.authorize(location)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 16 * 60 * 1000 })
    try {
      const res = await deliver(client, answer)
      await expectFailure(client, res, `${ORIGIN}/auth/signin?error=FlowStateError`)
    } finally {
      vi.useRealTimers()
    }
  })

  it.each(["500", "malformed"] as const)("token endpoint answering %s → error=Configuration, process alive", async (fault) => {
    const { client, log } = makeClient([oidc("idp")])
    const { location } = await startSignIn(client, "idp")
    const answer = await server.authorize(location)
    server.setTokenFault(fault)
    try {
      const res = await deliver(client, answer)
      await expectFailure(client, res, `${ORIGIN}/auth/error?error=Configuration`)
      expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["CallbackRouteError"])
    } finally {
      server.setTokenFault(null)
    }
  })

  it("an unreachable provider (closed port) → a clear error quickly", async () => {
    const port = await closedPort()
    const { client, log } = makeClient([oidc("dead", { issuer: `http://127.0.0.1:${port}` })])
    const started = Date.now()
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signin/dead", { form: { csrfToken } })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["OAuthSignInError"])
  })

  it("a token endpoint that never answers is cut off by the provider timeout", async () => {
    const { client, log } = makeClient([oidc("slow", { timeout: 500 })])
    const { location } = await startSignIn(client, "slow")
    const answer = await server.authorize(location)
    server.setTokenFault("slow")
    const started = Date.now()
    try {
      const res = await deliver(client, answer)
      expect(Date.now() - started).toBeLessThan(3_000)
      await expectFailure(client, res, `${ORIGIN}/auth/error?error=Configuration`, "slow")
      expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["CallbackRouteError"])
    } finally {
      server.setTokenFault(null)
    }
  })

  it("a callbackUrl to another origin lands on the site", async () => {
    const { client } = makeClient([oidc("idp")])
    const { res } = await signInVia(client, "idp", { form: { callbackUrl: "https://evil.test/steal" } })
    expect(res.headers.get("location")).toBe(ORIGIN)
  })

  it("query params cannot override redirect_uri, client_id, response_type or state; allowed ones pass", async () => {
    const { client } = makeClient([oidc("idp")])
    const query = "?redirect_uri=https%3A%2F%2Fevil.test%2Fcb&client_id=evil&response_type=token&state=fixed&prompt=login&login_hint=alice"
    const { location } = await startSignIn(client, "idp", {}, query)
    const url = new URL(location)
    expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/idp`)
    expect(url.searchParams.get("client_id")).toBe("basic-client")
    expect(url.searchParams.get("response_type")).toBe("code")
    expect(url.searchParams.get("state")).not.toBe("fixed")
    expect(url.searchParams.get("prompt")).toBe("login")
    expect(url.searchParams.get("login_hint")).toBe("alice")
  })

  it("sign-in POST without CSRF never reaches the provider", async () => {
    const { client } = makeClient([oidc("idp")])
    const res = await client.send("/auth/signin/idp", { form: {} })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(client.jar.get(flowCookie("idp"))).toBeUndefined()
  })
})

describe("the authorization URL", () => {
  const checks = { redirectUri: "https://app.test/auth/callback/x", state: "S-1.a_b", codeChallenge: "C_2-c", nonce: "N3" }
  const serverOf = (href: string) => ({ issuer: "https://idp.test", authorization_endpoint: href })

  it("a sign-in without parameters of its own appends its checks to the provider's prepared query: the URL the general path builds", () => {
    const provider = {
      ...oidc("x"),
      clientId: "c id",
      authorization: { url: "https://idp.test/ignored", params: { prompt: "consent", scope: "openid email" } },
    }
    const as = serverOf("https://idp.test/auth?tenant=a b")
    const expected =
      "https://idp.test/auth?tenant=a+b&prompt=consent&scope=openid+email&response_type=code&client_id=c+id" +
      "&redirect_uri=https%3A%2F%2Fapp.test%2Fauth%2Fcallback%2Fx&state=S-1.a_b&code_challenge=C_2-c&code_challenge_method=S256&nonce=N3"
    expect(authorizationUrl(provider, as, as.authorization_endpoint, { csrfToken: "t" }, checks)).toBe(expected)
    expect(authorizationUrl(provider, as, as.authorization_endpoint, {}, checks)).toBe(expected)
    expect(authorizationUrl(provider, as, as.authorization_endpoint, {}, { ...checks, state: "S4", nonce: null })).toBe(
      expected.replace("state=S-1.a_b", "state=S4").replace("&nonce=N3", ""),
    )
    // another redirect URI, or parameters of the sign-in's own: built afresh
    const other = authorizationUrl(
      provider,
      as,
      as.authorization_endpoint,
      { login_hint: "ada" },
      { ...checks, redirectUri: "https://b.test/cb" },
    )
    expect(other).toBe(
      expected
        .replace("scope=openid+email", "scope=openid+email&login_hint=ada")
        .replace("https%3A%2F%2Fapp.test%2Fauth%2Fcallback%2Fx", "https%3A%2F%2Fb.test%2Fcb"),
    )
  })

  it("a configured state or nonce, an endpoint with a fragment, a state to encode: the sign-in's values still win, in place", () => {
    const configured = { ...oidc("x"), authorization: { url: "https://idp.test/a", params: { state: "fixed", nonce: "fixed" } } }
    const url = new URL(authorizationUrl(configured, serverOf("https://idp.test/a"), "https://idp.test/a", {}, checks))
    expect(url.searchParams.getAll("state")).toEqual(["S-1.a_b"])
    expect(url.searchParams.getAll("nonce")).toEqual(["N3"])
    const fragment = new URL(authorizationUrl(oidc("x"), serverOf("https://idp.test/a#f"), "https://idp.test/a#f", {}, checks))
    expect([fragment.hash, fragment.searchParams.get("state")]).toEqual(["#f", "S-1.a_b"])
    const odd = new URL(
      authorizationUrl(oidc("x"), serverOf("https://idp.test/a"), "https://idp.test/a", {}, { ...checks, state: "a&b=c" }),
    )
    expect(odd.searchParams.get("state")).toBe("a&b=c")
  })
})
