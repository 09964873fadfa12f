/**
 * One conformance suite for every `FlowStore`: the sealed cookie store and the Redis
 * store run the same scenarios through `Auth`, with a flow that rests between requests (a custom
 * "confirm" step declared with `defineFlow`, as in tests/flows.test.ts) and with a real OIDC sign-in
 * against the local oidc-provider.
 *
 * Covered: save + resume, TTL, single use, tamper, wrong provider, key rotation and a machine version
 * mismatch. Single use holds for every store alike: resuming claims the snapshot (flow id, per-save
 * nonce) in the server-state port, so a copied flow cookie is refused, even raced against the original,
 * and a replayed OAuth callback is refused before the provider is asked (attack class: flow-snapshot
 * replay; the cookie store used to accept a copy until it expired).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig, FlowStore, Provider, ServerState } from "../src/index.js"
import { confirmFlow } from "./support/confirm-flow.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies } from "./helpers.js"
import { type AuthorizeResult, type OidcServer, startOidcProvider } from "./support/oidc-provider.js"

/** One way to tamper with a persisted flow: gets its cookie, returns the value to send instead. */
export type Tamper = (cookie: { name: string; value: string }) => Promise<string>

export interface FlowStoreFixture {
  store: FlowStore
  /** The server-state port every instance of the app under test shares. */
  serverState: ServerState
  /** Ways to tamper with one persisted flow, by name (the names the suite was given). */
  tamper: Record<string, Tamper>
  teardown(): Promise<void>
}

export interface FlowStoreUnderTest {
  name: string
  /** Names of the fixture's tamperings (one test each). */
  tamperings: readonly string[]
  make(): Promise<FlowStoreFixture>
}

export const FLOW_COOKIE = "authchart.flow.two-step"
export const OTHER_COOKIE = "authchart.flow.other"
export const NEW_SECRET = "a-brand-new-secret-that-is-long-enough-42"

export { confirmFlow }

const confirmProvider = (id: string): Provider => ({
  id,
  name: id,
  type: "credentials",
  flow: "confirm",
  credentials: {},
  authorize: () => null,
})

/** An `Auth` client with the confirm flow on providers "two-step" and "other", over `store`. */
export function confirmClient(store: FlowStore, extra: Partial<AuthConfig> = {}, flow = confirmFlow()) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    flowStore: store,
    flows: [flow],
    providers: [confirmProvider("two-step"), confirmProvider("other")],
    ...extra,
  }
  return { client: new AuthClient(config), log }
}

/** SUBMIT: the flow rests on its confirm page. Returns the CSRF token and the flow cookie. */
export async function startConfirm(client: AuthClient) {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/two-step", { form: { csrfToken, password: "pw", callbackUrl: "/home" } })
  expect(res.status).toBe(200)
  expect(await res.text()).toContain("type the code")
  const cookie = client.jar.get(FLOW_COOKIE)
  expect(cookie).toBeTruthy()
  return { res, csrfToken, cookie: cookie as string }
}

/** STEP with a code, on provider `provider`. */
export function resumeConfirm(client: AuthClient, csrfToken: string, code = "123456", provider = "two-step") {
  return client.send(`/auth/callback/${provider}`, { form: { csrfToken, step: "confirm", code } })
}

/** A second browser holding a copy of `from`'s cookies (CSRF included). */
export function copyJar(from: AuthClient, to: AuthClient): AuthClient {
  for (const [name, value] of from.jar.cookies) to.jar.cookies.set(name, value)
  return to
}

const FLOW_STATE_ERROR = `${ORIGIN}/auth/signin?error=FlowStateError`
const types = (errors: Error[]) => errors.map((e) => (e as { type?: string }).type)

/** A refused resume: FlowStateError back to sign-in, no session, the flow cookie cleared. */
function expectRefused(client: AuthClient, res: Response, cookieName = FLOW_COOKIE) {
  expect(res.status).toBe(303)
  expect(res.headers.get("location")).toBe(FLOW_STATE_ERROR)
  expect(setCookies(res).find((c) => c.name === "authjs.session-token")).toBeUndefined()
  expect(client.jar.get(cookieName)).toBeUndefined()
}

function expectSignedIn(res: Response) {
  expect(res.status).toBe(303)
  expect(res.headers.get("location")).toBe(`${ORIGIN}/home`)
  expect(setCookies(res).find((c) => c.name === "authjs.session-token")?.value).toBeTruthy()
}

export function runFlowStoreConformance({ name, tamperings, make }: FlowStoreUnderTest): void {
  describe(`flow store conformance: ${name}`, () => {
    let fx: FlowStoreFixture
    let idp: OidcServer
    beforeAll(async () => {
      ;[fx, idp] = await Promise.all([
        make(),
        startOidcProvider({
          clients: [{ client_id: "store-client", client_secret: "store-secret", redirect_uris: [`${ORIGIN}/auth/callback/idp`] }],
        }),
      ])
    })
    afterAll(async () => {
      await Promise.all([fx?.teardown(), idp?.stop()])
    })
    const shared = () => ({ serverState: fx.serverState })

    it("save + resume: the flow rests, a wrong code rests it again, the right code signs in and clears the state", async () => {
      const { client } = confirmClient(fx.store, shared())
      const { csrfToken, res } = await startConfirm(client)
      const cookie = setCookies(res).find((c) => c.name === FLOW_COOKIE)
      expect(cookie?.attributes).toMatchObject({ httponly: true, samesite: "Lax", path: "/" })
      expect(Number(cookie?.attributes["max-age"])).toBeGreaterThan(890)
      expect(Number(cookie?.attributes["max-age"])).toBeLessThanOrEqual(900)

      const again = await resumeConfirm(client, csrfToken, "000000")
      expect(again.status).toBe(200)
      expect(client.jar.get(FLOW_COOKIE)).toBeTruthy()

      const done = await resumeConfirm(client, csrfToken)
      expectSignedIn(done)
      expect(setCookies(done).find((c) => c.name === FLOW_COOKIE)?.attributes["max-age"]).toBe("0")
      const session = (await (await client.send("/auth/session")).json()) as { user: { name: string } }
      expect(session.user.name).toBe("Carol")
    })

    it("TTL: resumed just before its lifetime ends it works; just after, FlowStateError", async () => {
      const early = confirmClient(fx.store, shared())
      const late = confirmClient(fx.store, shared())
      const a = await startConfirm(early.client)
      const b = await startConfirm(late.client)
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 880 * 1000 })
      try {
        expectSignedIn(await resumeConfirm(early.client, a.csrfToken))
        vi.setSystemTime(Date.now() + 25 * 1000)
        expectRefused(late.client, await resumeConfirm(late.client, b.csrfToken))
        expect(types(late.log.errors)).toEqual(["FlowStateError"])
      } finally {
        vi.useRealTimers()
      }
    })

    it("single use: once resumed, a copy of the flow cookie is refused (also after the flow rested again)", async () => {
      const { client } = confirmClient(fx.store, shared())
      const { csrfToken, cookie } = await startConfirm(client)
      const copy = copyJar(client, confirmClient(fx.store, shared()).client)
      expectSignedIn(await resumeConfirm(client, csrfToken))
      expectRefused(copy, await resumeConfirm(copy, csrfToken))

      // a flow that rested again: the cookie before the wrong code is stale (single use) or not
      const second = confirmClient(fx.store, shared()).client
      const started = await startConfirm(second)
      expect(started.cookie).not.toBe(cookie)
      const stale = copyJar(second, confirmClient(fx.store, shared()).client)
      expect((await resumeConfirm(second, started.csrfToken, "000000")).status).toBe(200)
      expectRefused(stale, await resumeConfirm(stale, started.csrfToken))
    })

    it("single use under a race: two resumes with the same cookie at once", async () => {
      const { client } = confirmClient(fx.store, shared())
      const { csrfToken } = await startConfirm(client)
      const twin = copyJar(client, confirmClient(fx.store, shared()).client)
      const results = await Promise.all([resumeConfirm(client, csrfToken), resumeConfirm(twin, csrfToken)])
      const wins = results.filter((r) => r.headers.get("location") === `${ORIGIN}/home`).length
      const refused = results.filter((r) => r.headers.get("location") === FLOW_STATE_ERROR).length
      expect({ wins, refused }).toEqual({ wins: 1, refused: 1 })
    })

    it.each(tamperings)("tamper (%s) → FlowStateError, no session, the flow cookie cleared", async (how) => {
      const tamper = fx.tamper[how]
      if (!tamper) throw new Error(`the fixture has no tampering "${how}"`)
      const { client, log } = confirmClient(fx.store, shared())
      const { csrfToken, cookie } = await startConfirm(client)
      client.jar.cookies.set(FLOW_COOKIE, await tamper({ name: FLOW_COOKIE, value: cookie }))
      expectRefused(client, await resumeConfirm(client, csrfToken))
      expect(types(log.errors)).toEqual(["FlowStateError"])
    })

    it("wrong provider: the flow cookie moved to another provider's name does not open, and does not spend the flow", async () => {
      const { client, log } = confirmClient(fx.store, shared())
      const { csrfToken, cookie } = await startConfirm(client)
      client.jar.cookies.set(OTHER_COOKIE, cookie)
      const res = await resumeConfirm(client, csrfToken, "123456", "other")
      expectRefused(client, res, OTHER_COOKIE)
      expect(types(log.errors)).toEqual(["FlowStateError"])
      expectSignedIn(await resumeConfirm(client, csrfToken))
    })

    it("key rotation: sealed with the old secret, resumed by a config with [new, old]; a config without the old one refuses", async () => {
      const before = confirmClient(fx.store, shared())
      const { cookie } = await startConfirm(before.client)
      // only the flow cookie travels: the CSRF cookie is signed with the old secret as well
      const refused = confirmClient(fx.store, { ...shared(), secret: NEW_SECRET }).client
      refused.jar.cookies.set(FLOW_COOKIE, cookie)
      expectRefused(refused, await resumeConfirm(refused, await refused.csrf()))

      const again = confirmClient(fx.store, shared())
      const second = await startConfirm(again.client)
      const rotated = copyJar(again.client, confirmClient(fx.store, { ...shared(), secret: [NEW_SECRET, SECRET] }).client)
      expectSignedIn(await resumeConfirm(rotated, second.csrfToken))
    })

    it("machine version mismatch: a snapshot from another version of the flow → FlowStateError", async () => {
      const first = confirmClient(fx.store, shared())
      const { csrfToken } = await startConfirm(first.client)
      const deployed = confirmClient(fx.store, shared(), confirmFlow({ extraState: true }))
      const next = copyJar(first.client, deployed.client)
      expectRefused(next, await resumeConfirm(next, csrfToken))
      expect(types(deployed.log.errors)).toEqual(["FlowStateError"])
    })

    it("OIDC through the store (state, PKCE, nonce); a replayed callback with a copied flow cookie gets no session", async () => {
      const oidcConfig = (): AuthConfig => ({
        secret: SECRET,
        trustHost: true,
        logger: captureLogger().logger,
        flowStore: fx.store,
        serverState: fx.serverState,
        providers: [
          { id: "idp", name: "IdP", type: "oidc", issuer: idp.issuer, clientId: "store-client", clientSecret: "store-secret" },
        ] as AuthConfig["providers"],
      })
      const client = new AuthClient(oidcConfig())
      const csrfToken = await client.csrf()
      const start = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/dashboard" } })
      expect(start.status).toBe(303)
      const copied = copyJar(client, new AuthClient(oidcConfig()))
      const answer = (await idp.authorize(start.headers.get("location") as string)) as Extract<AuthorizeResult, { kind: "redirect" }>
      const callback = new URL(answer.url)
      const done = await client.send(`${callback.pathname}${callback.search}`)
      expect(done.status).toBe(302)
      expect(done.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
      const session = (await (await client.send("/auth/session")).json()) as { user: { email: string } }
      expect(session.user.email).toBe("alice@example.test")

      const tokenRequests = idp.tokenRequests.count
      const replay = await copied.send(`${callback.pathname}${callback.search}`)
      expect(copied.jar.get("authjs.session-token")).toBeUndefined()
      // the state was used: refused before the provider is even asked
      expect(replay.headers.get("location")).toBe(FLOW_STATE_ERROR)
      expect(idp.tokenRequests.count).toBe(tokenRequests)
    })
  })
}
