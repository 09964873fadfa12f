/**
 * The token answer as the sign-in reads it (src/runtime/engine/effects/oauth-token.ts: oauth4webapi's
 * `authorizationCodeGrantRequest` and `processAuthorizationCodeResponse`), served by a local token
 * endpoint: valid answers give their tokens and ID token claims, and every altered answer or ID token ends
 * in oauth4webapi's verdict, named here by the AuthError type the sign-in logs. Then the token request
 * itself: the form and client authentication oauth4webapi sends, and changed client settings taking effect.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as o from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { OAuthConfig } from "../src/providers/oauth-types.js"
import { asAuthError, redeemCode } from "../src/runtime/engine/effects/oauth-token.js"

const ISSUER = "https://idp.example.test"
const CLIENT = "client-1"
const NONCE = "nonce-0123456789"
const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url")
const jwt = (claims: unknown, header: unknown = { alg: "RS256", kid: "k1" }) => `${b64(header)}.${b64(claims)}.c2lnbmF0dXJl`
const now = () => Math.floor(Date.now() / 1000)
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  sub: "user-1",
  aud: CLIENT,
  exp: now() + 300,
  iat: now(),
  nonce: NONCE,
  email: "ada@example.test",
  ...extra,
})
const without = (name: string) => Object.fromEntries(Object.entries(claims()).filter(([key]) => key !== name))
const tokens = (extra: Record<string, unknown> = {}, idToken: unknown = jwt(claims())) => ({
  access_token: "at-1",
  token_type: "Bearer",
  expires_in: 3600,
  id_token: idToken,
  ...extra,
})
/** A token endpoint answer: its status and JSON text. */
interface Answer {
  readonly status: number
  readonly body: string
}
const answer = (body: unknown, status = 200): Answer => ({ status, body: typeof body === "string" ? body : JSON.stringify(body) })

/** What a case changes: the algs the server announces, the client's registered alg, the nonce sent, OIDC or plain OAuth 2. */
interface Setting {
  readonly serverAlgs?: string[]
  readonly clientAlg?: string
  readonly nonce?: string | null
  readonly oidc?: boolean
}
type Verdict = "accepted" | "InvalidCheck" | "CallbackRouteError"
type Case = [name: string, verdict: Verdict, answer: Answer, setting?: Setting]

/** The answer the local token endpoint gives next. */
let served: Answer = answer({})
let tokenEndpoint = ""
let answering: Server

beforeAll(async () => {
  answering = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(served.status, { "content-type": "application/json" })
      res.end(served.body)
    })
  })
  await new Promise<void>((resolve) => answering.listen(0, "127.0.0.1", resolve))
  tokenEndpoint = `http://127.0.0.1:${(answering.address() as AddressInfo).port}/token`
})
afterAll(() => {
  answering.closeAllConnections()
  answering.close()
})

/** The code redeemed against the local token endpoint answering `given`: the tokens and claims, or the AuthError type. */
async function redeemed(given: Answer, setting: Setting = {}) {
  served = given
  const provider: OAuthConfig = {
    id: "idp",
    name: "IdP",
    type: setting.oidc === false ? "oauth" : "oidc",
    issuer: ISSUER,
    clientId: CLIENT,
    clientSecret: "secret",
    ...(setting.clientAlg ? { client: { id_token_signed_response_alg: setting.clientAlg } } : {}),
  }
  const server: o.AuthorizationServer = {
    issuer: ISSUER,
    token_endpoint: tokenEndpoint,
    ...(setting.serverAlgs ? { id_token_signing_alg_values_supported: setting.serverAlgs } : {}),
  }
  const callback = o.validateAuthResponse(server, { client_id: CLIENT }, new URLSearchParams({ code: "c" }), o.expectNoState)
  const nonce = setting.nonce === undefined ? NONCE : setting.nonce
  try {
    return await redeemCode({ provider, server, callback, redirectUri: "https://app.test/cb", codeVerifier: "v", nonce })
  } catch (err) {
    return asAuthError(err, "idp").type
  }
}

// Some ID tokens below carry times 29 to 31 s from the moment they are made, either side of oauth4webapi's
// 30 s tolerance; they are made as this module loads and checked later (on a loaded machine, over a second
// later). The clock stands still from here to the last check.
vi.useFakeTimers({ toFake: ["Date"] })

const valid: Case[] = [
  ["an OIDC answer with an ID token", "accepted", answer(tokens())],
  [
    "refresh_token, scope, expires_in 0, a DPoP token type",
    "accepted",
    answer(tokens({ refresh_token: "rt", scope: "", expires_in: 0, token_type: "DPoP" })),
  ],
  ["aud a list of the client alone", "accepted", answer(tokens({}, jwt(claims({ aud: [CLIENT] }))))],
  ["aud with another audience and azp the client", "accepted", answer(tokens({}, jwt(claims({ aud: [CLIENT, "x"], azp: CLIENT }))))],
  [
    "exp 29 s ago, nbf 29 s ahead, auth_time",
    "accepted",
    answer(tokens({}, jwt(claims({ exp: now() - 29, nbf: now() + 29, auth_time: 0 })))),
  ],
  ["an empty sub and no expires_in", "accepted", answer(tokens({ expires_in: undefined }, jwt(claims({ sub: "" }))))],
  ["no nonce sent, none in the ID token", "accepted", answer(tokens({}, jwt(without("nonce")))), { nonce: null }],
  ["plain OAuth 2 without an ID token", "accepted", answer(tokens({ id_token: undefined })), { nonce: null, oidc: false }],
  ["an alg the server lists", "accepted", answer(tokens({}, jwt(claims(), { alg: "ES256" }))), { serverAlgs: ["ES256"] }],
  ["the client's registered alg", "accepted", answer(tokens({}, jwt(claims(), { alg: "HS256" }))), { clientAlg: "HS256" }],
  ["expires_in as a string (oauth4webapi reads it)", "accepted", answer(tokens({ expires_in: "3600" }))],
  [
    "a space in an ID token part (oauth4webapi drops it)",
    "accepted",
    answer(tokens({}, ` ${b64({ alg: "RS256" })}.${b64(claims())}.c2ln`)),
  ],
]

const altered: Case[] = [
  [
    "an ID token part with characters outside base64url",
    "CallbackRouteError",
    answer(tokens({}, `${b64({ alg: "RS256" })}!!!!.${b64(claims())}.c2ln`)),
  ],
  ["an ID token part one character too long", "CallbackRouteError", answer(tokens({}, `${b64({ alg: "RS256" })}A.${b64(claims())}.c2ln`))],
  ["a 400 error answer", "CallbackRouteError", answer({ error: "invalid_grant" }, 400)],
  ["a 201 answer", "CallbackRouteError", answer(tokens(), 201)],
  ["a body that is not JSON", "CallbackRouteError", answer("{access_token")],
  ["a JSON array", "InvalidCheck", answer([tokens()])],
  ["no access_token", "InvalidCheck", answer(tokens({ access_token: undefined }))],
  ["an empty access_token", "InvalidCheck", answer(tokens({ access_token: "" }))],
  ["no token_type", "InvalidCheck", answer(tokens({ token_type: undefined }))],
  ["token_type mac", "CallbackRouteError", answer(tokens({ token_type: "mac" }))],
  ["a negative expires_in", "InvalidCheck", answer(tokens({ expires_in: -1 }))],
  ["an empty refresh_token", "InvalidCheck", answer(tokens({ refresh_token: "" }))],
  ["scope a number", "InvalidCheck", answer(tokens({ scope: 1 }))],
  ["no ID token in an OIDC answer", "InvalidCheck", answer(tokens({ id_token: undefined }))],
  ["an empty ID token", "InvalidCheck", answer(tokens({ id_token: "" }))],
  ["an encrypted ID token (5 parts)", "CallbackRouteError", answer(tokens({}, "a.b.c.d.e"))],
  ["an ID token of 2 parts", "InvalidCheck", answer(tokens({}, `${b64({ alg: "RS256" })}.${b64(claims())}`))],
  ["a header that is not JSON", "CallbackRouteError", answer(tokens({}, `${b64("{alg")}.${b64(claims())}.c2ln`))],
  ["a header that is an array", "InvalidCheck", answer(tokens({}, jwt(claims(), ["RS256"])))],
  ["alg none", "InvalidCheck", answer(tokens({}, jwt(claims(), { alg: "none" })))],
  ["an alg the server does not list", "InvalidCheck", answer(tokens({}, jwt(claims(), { alg: "RS256" }))), { serverAlgs: ["ES256"] }],
  ["an alg other than the client's", "InvalidCheck", answer(tokens({}, jwt(claims()))), { clientAlg: "HS256" }],
  ["a crit header", "CallbackRouteError", answer(tokens({}, jwt(claims(), { alg: "RS256", crit: ["exp"] })))],
  ["claims that are not JSON", "CallbackRouteError", answer(tokens({}, `${b64({ alg: "RS256" })}.${b64("{iss")}.c2ln`))],
  ["claims that are an array", "InvalidCheck", answer(tokens({}, jwt([claims()])))],
  ["no exp", "InvalidCheck", answer(tokens({}, jwt(without("exp"))))],
  ["exp a string", "InvalidCheck", answer(tokens({}, jwt(claims({ exp: String(now() + 300) }))))],
  ["exp 31 s ago", "CallbackRouteError", answer(tokens({}, jwt(claims({ exp: now() - 31 }))))],
  ["nbf 31 s ahead", "CallbackRouteError", answer(tokens({}, jwt(claims({ nbf: now() + 31 }))))],
  ["nbf a string", "InvalidCheck", answer(tokens({}, jwt(claims({ nbf: "0" }))))],
  ["no iat", "InvalidCheck", answer(tokens({}, jwt(without("iat"))))],
  ["iat a string", "InvalidCheck", answer(tokens({}, jwt(claims({ iat: "0" }))))],
  ["no iss", "InvalidCheck", answer(tokens({}, jwt(without("iss"))))],
  ["another issuer", "InvalidCheck", answer(tokens({}, jwt(claims({ iss: "https://evil.example.test" }))))],
  ["no aud", "InvalidCheck", answer(tokens({}, jwt(without("aud"))))],
  ["aud another client", "InvalidCheck", answer(tokens({}, jwt(claims({ aud: "client-2" }))))],
  ["aud a list without the client", "InvalidCheck", answer(tokens({}, jwt(claims({ aud: ["client-2"] }))))],
  ["aud a number", "InvalidCheck", answer(tokens({}, jwt(claims({ aud: 1 }))))],
  ["another audience and no azp", "InvalidCheck", answer(tokens({}, jwt(claims({ aud: [CLIENT, "x"] }))))],
  ["another audience and azp another client", "InvalidCheck", answer(tokens({}, jwt(claims({ aud: [CLIENT, "x"], azp: "x" }))))],
  ["no sub", "InvalidCheck", answer(tokens({}, jwt(without("sub"))))],
  ["sub a number", "InvalidCheck", answer(tokens({}, jwt(claims({ sub: 1 }))))],
  ["auth_time a string", "InvalidCheck", answer(tokens({}, jwt(claims({ auth_time: "0" }))))],
  ["a negative auth_time", "InvalidCheck", answer(tokens({}, jwt(claims({ auth_time: -1 }))))],
  ["another nonce", "InvalidCheck", answer(tokens({}, jwt(claims({ nonce: "another" }))))],
  ["no nonce where one was sent", "InvalidCheck", answer(tokens({}, jwt(without("nonce"))))],
  ["a nonce where none was sent", "InvalidCheck", answer(tokens()), { nonce: null }],
  ["a nonce in a plain OAuth 2 answer's ID token", "InvalidCheck", answer(tokens()), { nonce: null, oidc: false }],
]

describe("the token answer, read by oauth4webapi", () => {
  afterAll(() => void vi.useRealTimers())

  it.each(valid)("%s: %s", async (_, _verdict, given, setting) => {
    const result = await redeemed(given, setting)
    if (typeof result === "string") throw new Error(`refused: ${result}`)
    expect(result.tokens.access_token).toBe("at-1")
    const idToken = (JSON.parse(given.body) as { id_token?: unknown }).id_token
    expect(result.claims?.iss).toBe(idToken === undefined ? undefined : ISSUER)
  })

  it.each(altered)("%s → %s", async (_, verdict, given, setting) => {
    expect(await redeemed(given, setting)).toBe(verdict)
  })
})

describe("the token request oauth4webapi sends", () => {
  const seen: { headers: Record<string, unknown>; body: string }[] = []
  let endpoint: Server
  let provider: OAuthConfig

  beforeAll(async () => {
    endpoint = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = ""
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString()
      })
      req.on("end", () => {
        // the connection's own headers (host, keep-alive) are the client's, not the request's form
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "connection"))
        seen.push({ headers, body })
        res.setHeader("content-type", "application/json")
        res.end(JSON.stringify({ access_token: `at-${seen.length}`, token_type: "bearer", expires_in: 60 }))
      })
    })
    await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`
    provider = { id: "plain", name: "Plain", type: "oauth", issuer: base, clientId: "c 1", clientSecret: "s:1" }
  })
  afterAll(() => {
    endpoint.closeAllConnections()
    endpoint.close()
  })

  it("the client's authentication and form, each sign-in's own code, redirect URI and verifier", async () => {
    const tokenServer = { issuer: provider.issuer ?? "", token_endpoint: `${provider.issuer}/token` }
    for (const n of [1, 2, 3]) {
      const callback = o.validateAuthResponse(
        tokenServer,
        { client_id: "c 1" },
        new URLSearchParams({ code: `code ${n}` }),
        o.expectNoState,
      )
      const redeemed = await redeemCode({
        provider,
        server: tokenServer,
        callback,
        redirectUri: `https://app.test/cb/${n}`,
        codeVerifier: `v${n}`,
        nonce: null,
      })
      expect(redeemed).toEqual({ tokens: { access_token: `at-${n}`, token_type: "bearer", expires_in: 60 }, claims: undefined })
    }
    const form = (n: number) =>
      new URLSearchParams({
        redirect_uri: `https://app.test/cb/${n}`,
        code: `code ${n}`,
        code_verifier: `v${n}`,
        grant_type: "authorization_code",
      })
    expect(seen.map((request) => request.body)).toEqual([1, 2, 3].map((n) => form(n).toString()))
    expect(seen[1]?.headers).toEqual(seen[0]?.headers)
    expect(seen[2]?.headers).toEqual(seen[0]?.headers)
    expect(seen[0]?.headers).toMatchObject({ authorization: `Basic ${btoa("c+1:s%3A1")}`, accept: "application/json" })
  })

  it("a provider whose client settings changed authenticates with the new ones", async () => {
    const tokenServer = { issuer: provider.issuer ?? "", token_endpoint: `${provider.issuer}/token` }
    const callback = o.validateAuthResponse(tokenServer, { client_id: "c 1" }, new URLSearchParams({ code: "code 4" }), o.expectNoState)
    provider.clientSecret = "s:2"
    provider.client = { token_endpoint_auth_method: "client_secret_post" }
    await redeemCode({
      provider,
      server: tokenServer,
      callback,
      redirectUri: "https://app.test/cb/4",
      codeVerifier: "v4",
      nonce: null,
    })
    expect(seen.at(-1)?.headers.authorization).toBeUndefined()
    expect(new URLSearchParams(seen.at(-1)?.body).get("client_secret")).toBe("s:2")
  })
})
