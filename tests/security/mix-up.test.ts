/**
 * Attack class: mix-up (RFC 9207, RFC 9700 §4.4). An authorization response is only accepted from the
 * issuer the flow was started with: the `iss` parameter must name it (and must be there when the server
 * says it sends it), so a code issued by one provider is never sent to another provider's token endpoint.
 * Against real OpenID providers (oidc-provider), one honest and one playing the attacker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OidcServer } from "../support/oidc-provider.js"
import {
  ORIGIN,
  answerUrl,
  beginSignIn,
  browser,
  deliver,
  errorTypes,
  expectRefused,
  flowCookie,
  oidcAt,
  sessionOf,
  startIdp,
} from "./support.js"

const IDS = ["honest", "attacker", "quiet"]
let honest: OidcServer
let attacker: OidcServer
/** A provider that does not send `iss` (and does not advertise it). */
let quiet: OidcServer

beforeAll(async () => {
  ;[honest, attacker, quiet] = await Promise.all([startIdp(IDS), startIdp(IDS), startIdp(IDS, { issParameter: false })])
})
afterAll(async () => {
  await Promise.all([honest?.stop(), attacker?.stop(), quiet?.stop()])
})

const providers = () => [oidcAt(honest, "honest"), oidcAt(attacker, "attacker"), oidcAt(quiet, "quiet")]

describe("mix-up: an authorization response is bound to the issuer of its flow", () => {
  it("baseline: the honest provider's own answer signs in", async () => {
    const { client } = browser(providers())
    const authz = await beginSignIn(client, "honest", { callbackUrl: "/home" })
    const res = await deliver(client, answerUrl(await honest.authorize(authz.href)))
    expect(res.headers.get("location")).toBe(`${ORIGIN}/home`)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("mix-up: the attacker bounces our request to the honest provider; its code never reaches the attacker's token endpoint", async () => {
    const { client, log } = browser(providers())
    // The user picks "attacker"; the attacker forwards our request (state, PKCE challenge) to the
    // honest provider, where our client and (worst case) this callback are registered too.
    const toAttacker = await beginSignIn(client, "attacker")
    const bounced = new URL(toAttacker.pathname + toAttacker.search, honest.issuer)
    const answer = answerUrl(await honest.authorize(bounced.href))
    expect(answer.pathname).toBe("/auth/callback/attacker")
    expect(answer.searchParams.get("iss")).toBe(honest.issuer)
    const before = attacker.tokenRequests.count
    const res = await deliver(client, answer)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["InvalidCheck"])
    expect(attacker.tokenRequests.count).toBe(before)
    expect(client.jar.get(flowCookie("attacker"))).toBeUndefined()
  })

  it.each([
    ["an answer naming another issuer", (answer: URL) => answer.searchParams.set("iss", attacker.issuer)],
    ["an answer stripped of `iss` by a provider that advertises it", (answer: URL) => answer.searchParams.delete("iss")],
  ])("mix-up: %s is refused before the code is redeemed", async (_, edit) => {
    const { client, log } = browser(providers())
    const authz = await beginSignIn(client, "honest")
    const answer = answerUrl(await honest.authorize(authz.href))
    edit(answer)
    const before = honest.tokenRequests.count
    const res = await deliver(client, answer)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["InvalidCheck"])
    expect(honest.tokenRequests.count).toBe(before)
  })

  it("mix-up: a provider without `iss` signs in, but a forged `iss` in its answer is refused", async () => {
    const plain = browser(providers())
    const ok = await deliver(plain.client, answerUrl(await quiet.authorize((await beginSignIn(plain.client, "quiet")).href)))
    expect(ok.headers.get("location")).toBe(ORIGIN)

    const { client, log } = browser(providers())
    const answer = answerUrl(await quiet.authorize((await beginSignIn(client, "quiet")).href))
    expect(answer.searchParams.has("iss")).toBe(false)
    answer.searchParams.set("iss", attacker.issuer)
    const res = await deliver(client, answer)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["InvalidCheck"])
  })
})
