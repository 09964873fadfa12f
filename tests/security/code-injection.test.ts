/**
 * Attack class: authorization code injection (RFC 9700 §4.5). An attacker who got hold of a victim's
 * authorization code (a leaked redirect, a log, a malicious app at the same provider) pastes it into
 * their own browser's callback, with the `state` of a flow they started themselves. PKCE binds the code
 * to the verifier sealed in the flow that asked for it, the token request authenticates as our own
 * client, and the ID token must carry this flow's nonce: the injected code never becomes a session.
 * Both OIDC (nonce too) and plain OAuth 2 (PKCE alone) providers, against a real OpenID provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OidcServer } from "../support/oidc-provider.js"
import {
  OTHER_CLIENT,
  ORIGIN,
  answerUrl,
  beginSignIn,
  browser,
  deliver,
  errorTypes,
  expectRefused,
  oidcAt,
  sessionOf,
  startIdp,
} from "./support.js"

let idp: OidcServer
let plainOAuth: Record<string, unknown>
beforeAll(async () => {
  idp = await startIdp(["idp", "plain"])
  const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>
  plainOAuth = oidcAt(idp, "plain", {
    type: "oauth",
    authorization: { url: discovery.authorization_endpoint, params: { scope: "openid email profile" } },
    token: discovery.token_endpoint,
    userinfo: discovery.userinfo_endpoint,
  })
})
afterAll(() => idp?.stop())

const providers = () => [oidcAt(idp, "idp"), plainOAuth]

/** A code the provider issued for the victim (Alice) in the victim's own flow, never delivered. */
async function victimsCode(id: string): Promise<URL> {
  const victim = browser(providers()).client
  return answerUrl(await idp.authorize((await beginSignIn(victim, id)).href, { account: "alice@example.test" }))
}

/** The attacker's own flow: the callback carrying the attacker's `state` but the victim's `code`. */
async function injected(attacker: ReturnType<typeof browser>["client"], id: string, stolen: URL): Promise<URL> {
  const own = await beginSignIn(attacker, id)
  const url = new URL(`/auth/callback/${id}`, ORIGIN)
  url.searchParams.set("code", stolen.searchParams.get("code") as string)
  url.searchParams.set("state", own.searchParams.get("state") as string)
  url.searchParams.set("iss", idp.issuer)
  return url
}

describe.each(["idp", "plain"])("code injection (provider %s)", (id) => {
  it("baseline: the victim's own flow redeems the code", async () => {
    const { client } = browser(providers())
    const res = await deliver(client, answerUrl(await idp.authorize((await beginSignIn(client, id)).href)))
    expect(res.headers.get("location")).toBe(ORIGIN)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("code injection: the victim's code in the attacker's flow (another PKCE verifier) is refused by the token endpoint", async () => {
    const stolen = await victimsCode(id)
    const { client, log } = browser(providers())
    const before = idp.tokenRequests.count
    const res = await deliver(client, await injected(client, id, stolen))
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["CallbackRouteError"])
    expect(idp.tokenRequests.count).toBe(before + 1)
    expect(idp.tokenRequests.lastBody.code_verifier).toMatch(/^[\w-]{43,128}$/)
  })

  it("code injection: a code issued for another client of the same provider is refused", async () => {
    const { client, log } = browser(providers())
    const ours = await beginSignIn(client, id)
    // The attacker's app at the same provider asks for a code with our flow's parameters but its own client id.
    const forOther = new URL(ours)
    forOther.searchParams.set("client_id", OTHER_CLIENT.id)
    const answer = answerUrl(await idp.authorize(forOther.href))
    expect(answer.searchParams.get("code")).toBeTruthy()
    const res = await deliver(client, answer)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["CallbackRouteError"])
    expect(idp.tokenRequests.lastAuth).toBe("basic")
  })
})
