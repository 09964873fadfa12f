/**
 * Logout with the test OpenID provider, as an app's tests would use it: the IdP's end-session endpoint
 * (discovered, so `POST /auth/signout` with `provider=test-idp` goes there and comes back) and its
 * back-channel logout tokens (valid ones end the session; a changed claim is refused).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TestIdP, createTestIdP } from "authchart/testing"
import type { AuthConfig } from "../../src/index.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"

let idp: TestIdP
beforeAll(async () => {
  idp = await createTestIdP({ postLogoutRedirectUris: [`${ORIGIN}/auth/signout-callback`] })
})
afterAll(() => idp?.close())

function app() {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [idp.provider()],
    logout: { keepIdToken: true },
  }
  return { client: new AuthClient(config), log }
}

/** Signs `client` in as `account` on the IdP's login page. */
async function signIn(client: AuthClient, account: string): Promise<void> {
  const start = await client.send("/auth/signin/test-idp", { form: { csrfToken: await client.csrf() } })
  const page = await (await fetch(start.headers.get("location") as string)).text()
  const interaction = /name="interaction" value="([^"]+)"/.exec(page)?.[1] ?? ""
  const back = await fetch(`${idp.issuer}/login`, {
    method: "POST",
    body: new URLSearchParams({ interaction, account }),
    redirect: "manual",
  })
  const callback = new URL(back.headers.get("location") as string)
  expect((await client.send(`${callback.pathname}${callback.search}`)).status).toBe(302)
}

const email = async (client: AuthClient) =>
  ((await (await client.send("/auth/session")).json()) as { user?: { email?: string } } | null)?.user?.email

describe("createTestIdP: logout", () => {
  it("publishes an end_session_endpoint; RP-initiated logout goes there with the ID token and comes back", async () => {
    const { client, log } = app()
    await signIn(client, "alice")
    const out = await client.send("/auth/signout", {
      form: { csrfToken: await client.csrf(), provider: "test-idp", callbackUrl: `${ORIGIN}/bye` },
    })
    const endSession = new URL(out.headers.get("location") as string)
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${idp.issuer}/logout`)
    const back = await fetch(endSession, { redirect: "manual" })
    expect(back.status).toBe(303)
    const returned = new URL(back.headers.get("location") as string)
    expect(`${returned.origin}${returned.pathname}`).toBe(`${ORIGIN}/auth/signout-callback`)
    expect((await client.send(`${returned.pathname}${returned.search}`)).headers.get("location")).toBe(`${ORIGIN}/bye`)
    expect(idp.logouts.at(-1)).toBe("alice")
    expect(await email(client)).toBeUndefined()
    expect(log.errors).toEqual([])
  })

  it("refuses an end-session request to an unregistered URI, or with a hint it did not sign", async () => {
    const unregistered = new URLSearchParams({ client_id: idp.clientId, post_logout_redirect_uri: "https://evil.example/" })
    const refused = await fetch(`${idp.issuer}/logout?${unregistered}`, { redirect: "manual" })
    expect([refused.status, refused.headers.get("location")]).toEqual([400, null])
    const forged = new URLSearchParams({ id_token_hint: await idp.logoutToken("alice", { aud: "someone-else" }) })
    expect((await fetch(`${idp.issuer}/logout?${forged}`, { redirect: "manual" })).status).toBe(400)
  })

  it("its logout tokens drive an app's back-channel receiver: a valid one ends bob's session, another client's is refused", async () => {
    const { client, log } = app()
    await signIn(client, "bob")
    const post = async (token: string) =>
      (await new AuthClient(client.config).send("/auth/backchannel-logout/test-idp", { form: { logout_token: token } })).status
    expect(await post(await idp.logoutToken("bob", { aud: "another-client" }))).toBe(400)
    expect(await email(client)).toBe("bob@example.test")
    expect(await post(await idp.logoutToken("bob"))).toBe(200)
    expect(await email(client)).toBeUndefined()
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["BackchannelLogoutError"])
  })
})
