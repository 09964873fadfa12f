/**
 * Attack class: step bypass. An extra step (here the TOTP second factor after the password, and a
 * "terms" step after an OpenID provider) stands between "identity established" and "session issued".
 * Posting to the callback without the step, naming a step that does not exist or an internal state,
 * using GET, submitting the step without CSRF, submitting it to another provider, or before the first
 * factor: none of these issues a session. Only the right code, posted to the step, does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AuthConfig, credentialsFlow, defineStep, extendFlow, oauthFlow } from "../../src/index.js"
import Credentials from "../../src/providers/credentials.js"
import { totpCode, totpStep } from "../../src/steps/totp.js"
import { appConfig, users } from "../fixtures/credentials-with-totp.js"
import type { AuthClient } from "../helpers.js"
import type { OidcServer } from "../support/oidc-provider.js"
import {
  ORIGIN,
  SECRET,
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

const ADA_SECRET = users.get("ada")?.totpSecret as string

/** The TOTP app of the fixture, plus a second credentials provider ("staff") under the same flow. */
function totpApp() {
  const base = appConfig(SECRET)
  const staff = Credentials({
    id: "staff",
    name: "Staff",
    credentials: { username: {}, password: {} },
    authorize: () => ({ id: "u-ada", name: "Ada" }),
  })
  const config: AuthConfig = {
    ...base,
    trustHost: true,
    providers: [...base.providers, staff],
    flows: [extendFlow(credentialsFlow, [totpStep({ secretFor: (user) => (user.id === "u-ada" ? ADA_SECRET : null) })])],
  }
  return browser(config.providers as unknown[], config)
}

/** Ada's password accepted: the flow rests at the TOTP step. */
async function atTotpStep(client: AuthClient): Promise<string> {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
  expect(res.status).toBe(200)
  expect(await res.text()).toContain('name="code"')
  expect(client.jar.get(flowCookie("credentials"))).toBeTruthy()
  return csrfToken
}

describe("step bypass: the TOTP step after the password", () => {
  it("baseline: the right code posted to the step signs in", async () => {
    const { client } = totpApp()
    const csrfToken = await atTotpStep(client)
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: totpCode(ADA_SECRET) } })
    expect(res.headers.get("location")).toBe(ORIGIN)
    expect((await sessionOf(client))?.user.name).toBe("Ada")
  })

  it("step bypass: posting to the callback without the step starts over (a password again), no session", async () => {
    const { client } = totpApp()
    const csrfToken = await atTotpStep(client)
    const skip = await client.send("/auth/callback/credentials", { form: { csrfToken, code: totpCode(ADA_SECRET) } })
    expect(skip.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`)
    const again = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
    expect(again.status).toBe(200)
    expect(await again.text()).toContain('name="code"')
    expect(await sessionOf(client)).toBeNull()
  })

  it.each([
    "issuing",
    "linking",
    "done",
    "admin",
    "__proto__",
    "constructor",
    "TOTP",
    "totp ",
    "",
  ])("step bypass: a wrong step id %j issues no session", async (step) => {
    const { client, log } = totpApp()
    const csrfToken = await atTotpStep(client)
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, step, code: totpCode(ADA_SECRET) } })
    expect(res.headers.get("location")).toMatch(new RegExp(`^${ORIGIN}/auth/(error|signin)\\?error=`))
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    expect(await sessionOf(client)).toBeNull()
    expect(errorTypes(log).length).toBe(1)
  })

  it("step bypass: GET instead of POST is refused (error=Configuration), no session", async () => {
    const { client, log } = totpApp()
    const csrfToken = await atTotpStep(client)
    const query = new URLSearchParams({ csrfToken, step: "totp", code: totpCode(ADA_SECRET) })
    const res = await client.send(`/auth/callback/credentials?${query}`)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["InvalidProvider"])
  })

  it("step bypass: the step without the CSRF token is MissingCSRF, no session", async () => {
    const { client, log } = totpApp()
    await atTotpStep(client)
    const res = await client.send("/auth/callback/credentials", { form: { step: "totp", code: totpCode(ADA_SECRET) } })
    await expectRefused(client, res, `${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(errorTypes(log)).toEqual(["MissingCSRF"])
  })

  it("step bypass: submitting the step to another provider (with or without the flow state) is FlowStateError", async () => {
    for (const carry of [false, true]) {
      const { client, log } = totpApp()
      const csrfToken = await atTotpStep(client)
      if (carry) client.jar.cookies.set(flowCookie("staff"), client.jar.get(flowCookie("credentials")) as string)
      const res = await client.send("/auth/callback/staff", { form: { csrfToken, step: "totp", code: totpCode(ADA_SECRET) } })
      await expectRefused(client, res, `${ORIGIN}/auth/signin?error=FlowStateError`)
      expect(errorTypes(log)).toEqual(["FlowStateError"])
    }
  })

  it("step bypass: a JSON body cannot smuggle a machine event or a passed verdict", async () => {
    const { client } = totpApp()
    const csrfToken = await atTotpStep(client)
    const json = {
      csrfToken,
      step: "totp",
      type: "xstate.done.actor.totp.submit",
      output: { result: "pass" },
      result: "pass",
      code: ["000000"],
    }
    const res = await client.send("/auth/callback/credentials", { json })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('name="code"')
    expect(await sessionOf(client)).toBeNull()
  })
})

describe("step bypass: a step after an OpenID provider", () => {
  let idp: OidcServer
  beforeAll(async () => {
    idp = await startIdp(["idp"])
  })
  afterAll(() => idp?.stop())

  const terms = defineStep({
    id: "terms",
    page: ({ action, csrfToken }) =>
      `<form method="post" action="${action}"><input name="csrfToken" value="${csrfToken}"><input name="step" value="terms"></form>`,
    submit: ({ params }) => params.accept === "yes",
  })

  it("step bypass: the step submitted before the provider answered (first factor skipped) issues no session", async () => {
    const { client, log } = browser([oidcAt(idp, "idp")], { flows: [extendFlow(oauthFlow, [terms])] })
    await beginSignIn(client, "idp")
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/idp", { form: { csrfToken, step: "terms", accept: "yes" } })
    await expectRefused(client, res, `${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(errorTypes(log)).toEqual(["FlowStateError"])
  })

  it("baseline: after the provider, the step page and then accept signs in", async () => {
    const { client } = browser([oidcAt(idp, "idp")], { flows: [extendFlow(oauthFlow, [terms])] })
    const authz = await beginSignIn(client, "idp")
    const page = await deliver(client, answerUrl(await idp.authorize(authz.href)))
    expect(page.status).toBe(200)
    expect(await sessionOf(client)).toBeNull()
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/idp", { form: { csrfToken, step: "terms", accept: "yes" } })
    expect(res.headers.get("location")).toBe(ORIGIN)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })
})
