/**
 * Attack class: cookie tossing and cookie prefixes. A sibling subdomain (or a plain-HTTP page on the
 * same host) can set cookies for the site with `Domain=` and a longer `Path`, but it can never set a
 * `__Host-` cookie, and only a secure page can set `__Secure-`. So on HTTPS every cookie authchart sets
 * is prefixed, secure and host-only, the cookies that bind a browser to a sign-in (CSRF token, flow
 * state) are `__Host-`, and look-alike names a subdomain can set are ignored. Duplicated names are read
 * first-wins (RFC 6265 §5.4 order: the most specific path first).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import Credentials from "../../src/providers/credentials.js"
import { parseCookies } from "../../src/runtime/http/cookies.js"
import { setCookies } from "../helpers.js"
import type { OidcServer } from "../support/oidc-provider.js"
import { answerUrl, browser, errorTypes, oidcAt, sessionOf, startIdp } from "./support.js"

const HTTPS = "https://app.test"
let idp: OidcServer
beforeAll(async () => {
  idp = await startIdp(["idp"], {
    extra: [{ client_id: "tls-client", client_secret: "tls-secret-0123456789", redirect_uris: [`${HTTPS}/auth/callback/idp`] }],
  })
})
afterAll(() => idp?.stop())

const anyone = Credentials({
  credentials: { username: {} },
  authorize: ({ username }) => ({ id: String(username), name: String(username) }),
})
const site = () => browser([anyone, oidcAt(idp, "idp", { clientId: "tls-client", clientSecret: "tls-secret-0123456789" })], {}, HTTPS)

/** POST /signin/idp over HTTPS: the authorization URL, after the browser's own CSRF round trip. */
async function startOAuth(client: ReturnType<typeof site>["client"]) {
  const csrf = (await (await client.send("/auth/csrf")).json()) as { csrfToken: string }
  const res = await client.send("/auth/signin/idp", { form: { csrfToken: csrf.csrfToken } })
  return { res, authz: new URL(res.headers.get("location") as string) }
}

describe("cookie prefixes on HTTPS", () => {
  it("cookie tossing: every cookie of an OAuth sign-in is prefixed, Secure, HttpOnly, host-only; CSRF and flow state are __Host-", async () => {
    const { client } = site()
    const csrf = await client.send("/auth/csrf")
    const { res: start, authz } = await startOAuth(client)
    const answer = answerUrl(await idp.authorize(authz.href))
    const done = await client.send(`${answer.pathname}${answer.search}`)
    expect(done.headers.get("location")).toBe(HTTPS)
    const all = [csrf, start, done].flatMap(setCookies)
    expect(all.map((c) => c.name)).toEqual(
      expect.arrayContaining(["__Host-authjs.csrf-token", "__Host-authchart.flow.idp", "__Secure-authjs.session-token"]),
    )
    for (const cookie of all) {
      expect(cookie.name, cookie.name).toMatch(/^__(Host|Secure)-/)
      expect(cookie.attributes, cookie.name).toMatchObject({ secure: true, httponly: true, path: "/" })
      expect(cookie.attributes.domain, cookie.name).toBeUndefined()
    }
  })

  it("cookie tossing: a csrf pair tossed under a name a subdomain can set (unprefixed, lower-case prefix) does not vouch for a POST", async () => {
    // The attacker's own valid pair, read from the attacker's browser.
    const attacker = site().client
    const token = ((await (await attacker.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    const pair = [...attacker.jar.cookies].find(([name]) => name.endsWith("authjs.csrf-token"))?.[1] as string
    expect(pair).toMatch(/^[0-9a-f]{64}\|[0-9a-f]{64}$/)
    for (const name of ["authjs.csrf-token", "__Secure-authjs.csrf-token", "__host-authjs.csrf-token"]) {
      const { client, log } = site()
      client.jar.cookies.set(name, pair)
      const res = await client.send("/auth/callback/credentials", { form: { csrfToken: token, username: "mallory" } })
      expect(res.headers.get("location"), name).toBe(`${HTTPS}/auth/signin?error=MissingCSRF`)
      expect(errorTypes(log)).toEqual(["MissingCSRF"])
    }
  })

  it("cookie tossing: the attacker's own OAuth flow tossed into the victim's browser (subdomain-set flow cookie) does not sign the victim in as the attacker", async () => {
    const attacker = site().client
    const { authz } = await startOAuth(attacker)
    const flow = [...attacker.jar.cookies].find(([name]) => name.endsWith("authchart.flow.idp"))?.[1] as string
    expect(flow).toBeTruthy()
    const answer = answerUrl(await idp.authorize(authz.href, { account: "bob@example.test" }))
    // A secure sibling subdomain can set __Secure- and unprefixed names with Domain=app.test, never __Host-.
    for (const name of ["__Secure-authchart.flow.idp", "authchart.flow.idp"]) {
      const victim = site()
      victim.client.jar.cookies.set(name, flow)
      const res = await victim.client.send(`${answer.pathname}${answer.search}`)
      expect(res.headers.get("location"), name).toBe(`${HTTPS}/auth/signin?error=FlowStateError`)
      expect(await sessionOf(victim.client)).toBeNull()
      expect(errorTypes(victim.log)).toEqual(["FlowStateError"])
    }
  })

  it("cookie tossing: a session token under an unprefixed name is not read on HTTPS", async () => {
    const attacker = site().client
    const csrfToken = ((await (await attacker.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    await attacker.send("/auth/callback/credentials", { form: { csrfToken, username: "mallory" } })
    const token = attacker.jar.get("__Secure-authjs.session-token") as string
    expect(token).toBeTruthy()
    const victim = site().client
    victim.jar.cookies.set("authjs.session-token", token)
    expect(await sessionOf(victim)).toBeNull()
  })
})

describe("duplicated cookie names", () => {
  it("cookie tossing: the parser keeps the first of duplicated names (the browser sends the most specific path first)", () => {
    expect(parseCookies("a=first; a=second")).toEqual({ a: "first" })
    expect(parseCookies("__Host-authjs.csrf-token=x%7C1; __Host-authjs.csrf-token=y%7C2")["__Host-authjs.csrf-token"]).toBe("x|1")
  })

  it("cookie tossing: with two csrf cookies, only the first one's token is accepted", async () => {
    const first = site().client
    const second = site().client
    const t1 = ((await (await first.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    const t2 = ((await (await second.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
    const both = `__Host-authjs.csrf-token=${encodeURIComponent(first.jar.get("__Host-authjs.csrf-token") as string)}; __Host-authjs.csrf-token=${encodeURIComponent(second.jar.get("__Host-authjs.csrf-token") as string)}`
    const post = (csrfToken: string) =>
      site().client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada" }, headers: { cookie: both } })
    expect((await post(t2)).headers.get("location")).toBe(`${HTTPS}/auth/signin?error=MissingCSRF`)
    expect((await post(t1)).headers.get("location")).toBe(HTTPS)
  })
})
