/**
 * The example app's own tests, written against authchart/testing as an app's tests would be: sign in
 * with credentials, with an email link read from the test mailbox, and at the test OpenID provider,
 * under both session strategies; then the protected route answers, and sign-out ends it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestClient, getSessionFrom } from "authchart/testing"
import type { TestClient } from "authchart/testing"
import { totpCode } from "authchart/steps/totp"
import { KAY_TOTP_SECRET, createApp } from "./app.js"
import { useTestServers } from "./servers.js"

const servers = useTestServers()

describe.each(["jwt", "database"] as const)("the example app with %s sessions", (strategy) => {
  let client: TestClient
  beforeAll(async () => {
    client = await createTestClient(createApp({ ...servers, strategy }).app)
  })
  afterAll(() => client?.close())

  it("signs in with credentials; the protected route then knows the user, and sign-out ends it", async () => {
    expect(await getSessionFrom(client)).toBeNull()
    expect((await client.fetch("/me")).status).toBe(401)
    const result = await client.signIn.credentials({ email: "ada@example.test", password: "correct horse" })
    expect(result).toMatchObject({ ok: true, url: `${client.baseUrl}/`, error: null })
    expect((await getSessionFrom(client))?.user?.email).toBe("ada@example.test")
    const me = await client.fetch("/me")
    expect([me.status, await me.json()]).toEqual([200, { email: "ada@example.test", name: "Ada" }])
    await client.signOut()
    expect(await getSessionFrom(client)).toBeNull()
    expect((await client.fetch("/me")).status).toBe(401)
  })

  it("reports a wrong password as the sign-in page's error and code", async () => {
    const result = await client.signIn.credentials({ email: "ada@example.test", password: "wrong" })
    expect(result).toMatchObject({ ok: false, error: "CredentialsSignin", code: "credentials" })
    expect(new URL(result.url).pathname).toBe("/auth/signin")
    expect(await getSessionFrom(client)).toBeNull()
  })

  it("signs in with a password, then submits the TOTP step's page (a wrong code first)", async () => {
    const asked = await client.signIn.credentials({ email: "kay@example.test", password: "battery staple" })
    expect(asked).toMatchObject({ ok: false, error: null })
    expect(asked.response.status).toBe(200)
    const retry = await client.submit(asked, { code: totpCode(KAY_TOTP_SECRET, Date.now() + 600_000) })
    expect(retry).toMatchObject({ ok: false, error: null })
    expect(await getSessionFrom(client)).toBeNull()
    const done = await client.submit(retry, { code: totpCode(KAY_TOTP_SECRET) })
    expect(done).toMatchObject({ ok: true, url: `${client.baseUrl}/` })
    expect((await getSessionFrom(client))?.user?.email).toBe("kay@example.test")
    await client.signOut()
  })

  it("signs in with the link of the email the app sent, landing on the callbackUrl", async () => {
    const result = await client.signIn.email("grace@example.test", { mailbox: servers.mailbox, callbackUrl: `${client.baseUrl}/welcome` })
    expect(result).toMatchObject({ ok: true, url: `${client.baseUrl}/welcome` })
    expect(servers.mailbox.messages.at(-1)?.subject).toBe(`Sign in to ${new URL(client.baseUrl).host}`)
    expect((await getSessionFrom(client))?.user?.email).toBe("grace@example.test")
    await client.signOut()
  })

  it("signs in at the test OpenID provider as the account asked for", async () => {
    const result = await client.signIn.oauth({ account: "bob" })
    expect(result).toMatchObject({ ok: true, error: null })
    expect((await getSessionFrom(client))?.user).toMatchObject({ email: "bob@example.test", name: "Bob" })
    await client.signOut()
  })

  it("reports a sign-in cancelled at the provider as an error, with no session", async () => {
    const result = await client.signIn.oauth({ deny: true })
    expect(result).toMatchObject({ ok: false, error: "OAuthCallbackError" })
    expect(new URL(result.url).pathname).toBe("/auth/signin")
    expect(await getSessionFrom(client)).toBeNull()
  })
})
