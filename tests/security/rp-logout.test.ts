/**
 * Attack class: RP-initiated logout as an open redirect or a replayable return (OpenID Connect
 * RP-Initiated Logout 1.0 §2–3, RFC 9700 §4.11). `POST /auth/signout` with `provider=<id>` (CSRF-checked
 * like every sign-out) sends the browser to the provider's `end_session_endpoint`; the
 * `post_logout_redirect_uri` is the configured one, never taken from the request, and the return to
 * `/auth/signout-callback` needs the sealed `state` we sent, once. Against a real OpenID provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { AuthClient, tamperJwe } from "../helpers.js"
import type { IdpSession, OidcServer } from "../support/oidc-provider.js"
import {
  CLIENT,
  ORIGIN,
  SESSION_COOKIE,
  answerUrl,
  beginSignIn,
  browser,
  deliver,
  errorTypes,
  oidcAt,
  sessionOf,
  startIdp,
} from "./support.js"

let idp: OidcServer

beforeAll(async () => {
  idp = await startIdp(["idp"])
})
afterAll(async () => {
  await idp?.stop()
})

const ERROR_PAGE = `${ORIGIN}/auth/error?error=InvalidCheck`

/** A browser signed in as alice through the provider (its IdP session kept), JWT sessions keeping the ID token. */
async function aliceSignedIn(extra: Partial<AuthConfig> = {}) {
  const signOuts: unknown[] = []
  const signedIn = browser([oidcAt(idp, "idp")], {
    logout: { keepIdToken: true },
    events: { signOut: (m) => void signOuts.push(m) },
    ...extra,
  })
  const session: IdpSession = idp.session()
  const start = await beginSignIn(signedIn.client, "idp")
  const res = await deliver(signedIn.client, answerUrl(await idp.authorize(start.href, { session })))
  expect(res.status).toBe(302)
  expect((await sessionOf(signedIn.client))?.user.email).toBe("alice@example.test")
  return { ...signedIn, session, signOuts }
}

async function signOut(client: AuthClient, form: Record<string, string>): Promise<Response> {
  const csrfToken = await client.csrf()
  return client.send("/auth/signout", { form: { csrfToken, ...form } })
}

/** The provider logs the browser out and sends it back: the return URL it answers with. */
async function returnFromProvider(session: IdpSession, endSessionUrl: string): Promise<URL> {
  return new URL(await idp.endSession(session, endSessionUrl))
}

describe("RP-initiated logout: baseline", () => {
  it("signs out here, at the provider, and lands on the callback URL", async () => {
    const { client, session, signOuts, log } = await aliceSignedIn()
    const out = await signOut(client, { provider: "idp", callbackUrl: `${ORIGIN}/goodbye` })
    expect(out.status).toBe(303)
    expect(client.jar.get(SESSION_COOKIE)).toBeUndefined()
    expect(signOuts).toHaveLength(1)
    const target = new URL(out.headers.get("location") as string)
    expect(`${target.origin}${target.pathname}`).toBe(`${idp.issuer}/session/end`)
    expect(target.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/auth/signout-callback`)
    expect(target.searchParams.get("client_id")).toBe(CLIENT.id)
    const hint = JSON.parse(Buffer.from((target.searchParams.get("id_token_hint") ?? "").split(".")[1] ?? "", "base64url").toString())
    expect(hint).toMatchObject({ iss: idp.issuer, aud: CLIENT.id, sub: "user-alice" })
    expect(target.searchParams.get("state")).toBeTruthy()

    const back = await returnFromProvider(session, target.href)
    expect(`${back.origin}${back.pathname}`).toBe(`${ORIGIN}/auth/signout-callback`)
    const landed = await deliver(client, back)
    expect(landed.status).toBe(302)
    expect(landed.headers.get("location")).toBe(`${ORIGIN}/goodbye`)
    expect(await sessionOf(client)).toBeNull()
    expect(errorTypes(log)).toEqual([])
  })

  it("a plain POST /signout (no provider) stays Auth.js' local sign-out", async () => {
    const { client, log } = await aliceSignedIn()
    const out = await signOut(client, { callbackUrl: `${ORIGIN}/goodbye` })
    expect(out.status).toBe(303)
    expect(out.headers.get("location")).toBe(`${ORIGIN}/goodbye`)
    expect(await sessionOf(client)).toBeNull()
    expect(errorTypes(log)).toEqual([])
  })

  it("logout.provider makes a plain POST /signout log out at that provider", async () => {
    const { client } = await aliceSignedIn({ logout: { keepIdToken: true, provider: "idp" } })
    const out = await signOut(client, {})
    expect(new URL(out.headers.get("location") as string).origin).toBe(idp.issuer)
  })

  it("without a kept ID token the sign-out is local only, not an error", async () => {
    const { client, log } = await aliceSignedIn({ logout: {} })
    const out = await signOut(client, { provider: "idp", callbackUrl: `${ORIGIN}/goodbye` })
    expect(out.headers.get("location")).toBe(`${ORIGIN}/goodbye`)
    expect(await sessionOf(client)).toBeNull()
    expect(errorTypes(log)).toEqual([])
  })

  it("needs the CSRF token: without it the session stands and nobody is sent to the provider", async () => {
    const { client, log } = await aliceSignedIn()
    const out = await client.send("/auth/signout", { form: { provider: "idp" } })
    expect(out.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
  })
})

describe("RP-initiated logout: configuration and the kept ID token", () => {
  it("keeps the ID token when the jwt callback builds a token of its own", async () => {
    const { client } = await aliceSignedIn({ callbacks: { jwt: ({ token }) => ({ sub: token.sub, email: token.email }) } })
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
    const out = await signOut(client, { provider: "idp" })
    expect(new URL(out.headers.get("location") as string).searchParams.get("id_token_hint")).toBeTruthy()
  })

  it("logout.provider naming a provider that is not OIDC is a configuration error, logged once", async () => {
    const { client, log } = browser([oidcAt(idp, "idp")], { logout: { provider: "github" } })
    expect((await client.send("/auth/session")).status).toBe(500)
    expect((await client.send("/auth/csrf")).status).toBe(500)
    expect(errorTypes(log)).toEqual(["InvalidProvider"])
  })
})

describe("RP-initiated logout: the redirect after logout cannot be chosen by the request", () => {
  it("post_logout_redirect_uri in the form is ignored; a foreign callbackUrl lands on the site", async () => {
    const { client, session } = await aliceSignedIn()
    const out = await signOut(client, {
      provider: "idp",
      callbackUrl: "https://evil.example/",
      post_logout_redirect_uri: "https://evil.example/",
    })
    const target = new URL(out.headers.get("location") as string)
    expect(target.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/auth/signout-callback`)
    const landed = await deliver(client, await returnFromProvider(session, target.href))
    expect(landed.headers.get("location")).toBe(ORIGIN)
  })

  it("logout.postLogoutRedirectUri is sent exactly, whatever host the request named", async () => {
    const pinned = `${ORIGIN}/auth/signout-callback`
    const { client } = await aliceSignedIn({ logout: { keepIdToken: true, postLogoutRedirectUri: pinned } })
    const elsewhere = new AuthClient(client.config, "http://other.test") // a trusted host, not the registered one
    for (const [name, value] of client.jar.cookies) elsewhere.jar.cookies.set(name, value)
    const out = await signOut(elsewhere, { provider: "idp" })
    expect(new URL(out.headers.get("location") as string).searchParams.get("post_logout_redirect_uri")).toBe(pinned)
  })
})

describe("RP-initiated logout: the return is checked", () => {
  it("a replayed return (same state) is refused", async () => {
    const { client, session, log } = await aliceSignedIn()
    const out = await signOut(client, { provider: "idp", callbackUrl: `${ORIGIN}/goodbye` })
    const back = await returnFromProvider(session, out.headers.get("location") as string)
    expect((await deliver(client, back)).headers.get("location")).toBe(`${ORIGIN}/goodbye`)
    const again = await deliver(new AuthClient(client.config), back)
    expect(again.headers.get("location")).toBe(ERROR_PAGE)
    expect(errorTypes(log)).toEqual(["InvalidCheck"])
  })

  it("a return without state, or with a state we did not seal, is refused", async () => {
    const { client, log } = await aliceSignedIn()
    expect((await client.send("/auth/signout-callback")).headers.get("location")).toBe(ERROR_PAGE)
    const out = await signOut(client, { provider: "idp" })
    const state = new URL(out.headers.get("location") as string).searchParams.get("state") as string
    const forged = await client.send(`/auth/signout-callback?state=${encodeURIComponent(tamperJwe(state))}`)
    expect(forged.headers.get("location")).toBe(ERROR_PAGE)
    expect(errorTypes(log)).toEqual(["InvalidCheck", "InvalidCheck"])
  })
})
