/**
 * The engine and the sealed cookie flow store, through a flow that rests between requests: a custom
 * "confirm" step declared with `defineFlow`, exactly as an application would.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "../src/index.js"
import { defineFlow, type FlowDefinition } from "authchart/flow"
import { confirmFlow } from "./support/confirm-flow.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies, tamperJwe } from "./helpers.js"

const FLOW_COOKIE = "authchart.flow.two-step"

function clientFor(flow: FlowDefinition, extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    flows: [flow],
    providers: [{ id: "two-step", name: "Two step", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null }],
    ...extra,
  }
  return { client: new AuthClient(config), log }
}

async function start(client: AuthClient) {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw", callbackUrl: "/home" } })
  return { res, csrfToken }
}

// the same runner (an xstate actor) serves a flow whether an inspector watches or not
describe.each([
  ["uninspected", {}],
  ["inspected", { inspect: () => {} }],
])("a flow that rests between requests, %s", (_runner, runner: Partial<AuthConfig>) => {
  const makeClient = (flow: FlowDefinition, extra: Partial<AuthConfig> = {}) => clientFor(flow, { ...runner, ...extra })
  it("persists the snapshot in one sealed, HttpOnly cookie and resumes it", async () => {
    const { client } = makeClient(confirmFlow())
    const { res, csrfToken } = await start(client)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("type the code")
    const flowCookie = setCookies(res).find((c) => c.name === FLOW_COOKIE)
    expect(flowCookie?.attributes).toMatchObject({ httponly: true, samesite: "Lax", path: "/", "max-age": "900" })
    expect(flowCookie?.value.split(".")).toHaveLength(5)
    expect(flowCookie?.value).not.toContain("Carol")

    const done = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/home`)
    const cookies = setCookies(done)
    expect(cookies.find((c) => c.name === FLOW_COOKIE)?.attributes["max-age"]).toBe("0")
    expect(cookies.find((c) => c.name === "authjs.session-token")?.value).toBeTruthy()
    const session = (await (await client.send("/auth/session")).json()) as { user: { name: string } }
    expect(session.user.name).toBe("Carol")
  })

  it("a wrong code keeps the flow resting; the attempt cap fails it and clears the state", async () => {
    const { client } = makeClient(confirmFlow())
    const { csrfToken } = await start(client)
    for (let i = 0; i < 2; i++) {
      const again = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "000000" } })
      expect(again.status).toBe(200)
      expect(client.jar.get(FLOW_COOKIE)).toBeTruthy()
    }
    const failed = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "000000" } })
    expect(failed.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(client.jar.get(FLOW_COOKIE)).toBeUndefined()
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  })

  it("resuming with no flow state → FlowStateError back to sign-in, no session", async () => {
    const { client, log } = makeClient(confirmFlow())
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["FlowStateError"])
  })

  it("a tampered flow cookie → FlowStateError, the cookie is cleared", async () => {
    const { client } = makeClient(confirmFlow())
    const { csrfToken } = await start(client)
    const sealed = client.jar.get(FLOW_COOKIE) as string
    client.jar.cookies.set(FLOW_COOKIE, tamperJwe(sealed))
    const res = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(setCookies(res).find((c) => c.name === FLOW_COOKIE)?.attributes["max-age"]).toBe("0")
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  })

  it("a flow cookie moved to another provider's name does not open", async () => {
    const flow = confirmFlow()
    const { client } = makeClient(flow, {
      providers: [
        { id: "two-step", name: "A", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null },
        { id: "other", name: "B", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null },
      ],
    })
    const { csrfToken } = await start(client)
    client.jar.cookies.set("authchart.flow.other", client.jar.get(FLOW_COOKIE) as string)
    const res = await client.send("/auth/callback/other", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("an expired flow → FlowStateError", async () => {
    const { client } = makeClient(confirmFlow({ ttl: -30 }))
    const { csrfToken } = await start(client)
    const res = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("a snapshot from another version of the machine (a deploy changed it) → FlowStateError", async () => {
    const first = makeClient(confirmFlow())
    const { csrfToken } = await start(first.client)
    const second = makeClient(confirmFlow({ extraState: true }))
    for (const [k, v] of first.client.jar.cookies) second.client.jar.cookies.set(k, v)
    const res = await second.client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("a flow sealed before a secret rotation still resumes", async () => {
    const before = makeClient(confirmFlow())
    const { csrfToken } = await start(before.client)
    const after = makeClient(confirmFlow(), { secret: ["a-brand-new-secret-that-is-long-enough-42", SECRET] })
    for (const [k, v] of before.client.jar.cookies) after.client.jar.cookies.set(k, v)
    const res = await after.client.send("/auth/callback/two-step", { form: { csrfToken, step: "confirm", code: "123456" } })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/home`)
  })

  it("a step that never finishes is cut off by flowTimeout, not hung", async () => {
    const { client, log } = makeClient(confirmFlow({ slow: true }), { flowTimeout: 100 })
    const started = Date.now()
    const { res } = await start(client)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(res.status).toBe(303)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["FlowStateError"])
  })

  it("the start step requires CSRF like credentials", async () => {
    const { client } = makeClient(confirmFlow())
    const res = await client.send("/auth/callback/two-step", { form: { password: "pw" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(client.jar.get(FLOW_COOKIE)).toBeUndefined()
  })

  it("an event the resting state does not take is refused", async () => {
    const { client } = makeClient(confirmFlow())
    const { csrfToken } = await start(client)
    // a second SUBMIT restarts from scratch (start rows always begin anew) and rests again
    const restart = await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw" } })
    expect(restart.status).toBe(200)
    const wrongStep = await client.send("/auth/callback/two-step", { form: { csrfToken, step: "nope" } })
    expect(wrongStep.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })
})

const makeClient = clientFor

describe("a flow adds its own provider-scoped endpoints by rows (no runtime change)", () => {
  /** The confirm flow, answering the code also on `POST /confirm/<provider>` and `GET /hint/<provider>`. */
  const withOwnEndpoints = () => {
    const flow = confirmFlow()
    return defineFlow({
      ...flow,
      routes: [...flow.routes, { method: "POST", action: "confirm", event: "STEP", csrf: true, params: ["code"] }],
      answers: [{ method: "GET", action: "hint", answer: async (ctx) => ({ response: { body: `code for ${ctx.providerId}` } }) }],
    })
  }

  it("POST /confirm/<provider> resumes the resting flow; its CSRF rule is the row's", async () => {
    const { client } = makeClient(withOwnEndpoints())
    const { csrfToken } = await start(client)
    const forged = await client.send("/auth/confirm/two-step", { form: { code: "123456" } })
    expect(forged.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    const done = await client.send("/auth/confirm/two-step", { form: { csrfToken, code: "123456" } })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${ORIGIN}/home`)
    expect(client.jar.get("authjs.session-token")).toBeTruthy()
  })

  it("GET /hint/<provider> is answered by the flow; an unknown provider is InvalidProvider; without a provider, UnknownAction", async () => {
    const { client, log } = makeClient(withOwnEndpoints())
    const hint = await client.send("/auth/hint/two-step")
    expect([hint.status, await hint.text()]).toEqual([200, "code for two-step"])
    const unknown = await client.send("/auth/hint/nobody")
    expect(unknown.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["InvalidProvider"])
    const bare = await client.send("/auth/hint")
    expect(bare.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["InvalidProvider", "UnknownAction"])
  })

  it("without the flow, its actions are not served at all (400)", async () => {
    const { client } = makeClient(confirmFlow())
    expect((await client.send("/auth/hint/two-step")).status).toBe(400)
  })
})
