/**
 * Attack classes against email one-time codes (src/providers/email-code): guessing (the attempt cap
 * per code on the server; a stranger's guesses at a code it had mailed cannot lock the owner out), a stale code (expiry inside the flow), a code of
 * another address, a replayed code, a code readable at rest, the `signIn` callback and the code-request
 * rate limit. Each runs with the cookie flow store and with the Redis flow store on a real redis-server.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { unsealEnvelope } from "../../src/runtime/engine/store.js"
import { RedisFlowStore, RedisServerState } from "../../src/stores/redis.js"
import { AuthClient, ORIGIN } from "../helpers.js"
import { codeIn, emailCodeApp, usePeers } from "../support/email-code.js"

const peers = usePeers()
afterEach(() => {
  vi.useRealTimers()
})

const VERIFICATION = `${ORIGIN}/auth/error?error=Verification`
const FLOW_COOKIE = "authchart.flow.email-code"

const stores: [string, () => Partial<AuthConfig>][] = [
  ["the cookie flow store", () => ({})],
  [
    "the Redis flow store",
    () => ({
      flowStore: RedisFlowStore(peers.redis, { prefix: "sec-flow:" }),
      serverState: RedisServerState(peers.redis, { prefix: `sec-state:${Math.random()}:` }),
    }),
  ],
]

describe.each(stores)("email codes with %s", (storeName, store) => {
  const app = (more: Partial<AuthConfig> = {}) => emailCodeApp({ ...store(), ...more }, peers.smtp)
  const signedIn = (client: AuthClient) => client.jar.get("authjs.session-token") !== undefined
  const types = (errors: Error[]) => errors.map((e) => (e as { type?: string }).type)
  const otherThan = (code: string) => (code === "000000" ? "111111" : "000000")

  it("guessing: 5 wrong codes end the flow", async () => {
    const { requestCode, enterCode, client, log } = app()
    const { mail } = await requestCode("ada@example.test")
    for (let i = 0; i < 4; i++) expect((await enterCode(otherThan(codeIn(mail)))).status).toBe(200)
    expect((await enterCode(otherThan(codeIn(mail)))).headers.get("location")).toBe(VERIFICATION)
    expect(signedIn(client)).toBe(false)
    expect(log.errors.at(-1)?.message).toBe("The last allowed sign-in code was wrong.")
  })

  it("lockout not aimable: a stranger's 5 wrong guesses at a code it had mailed to Ada do not stop Ada's own code", async () => {
    const { requestCode, enterCode, config, log } = app()
    const stranger = new AuthClient(config)
    const aimed = await requestCode("ada.l@example.test", { by: stranger })
    for (let i = 0; i < 5; i++) await enterCode(otherThan(codeIn(aimed.mail)), stranger)
    expect(signedIn(stranger)).toBe(false)
    expect(log.errors.at(-1)?.message).toBe("The last allowed sign-in code was wrong.")

    const ada = new AuthClient(config)
    const own = await requestCode("ada.l@example.test", { by: ada })
    expect((await enterCode(codeIn(own.mail), ada)).headers.get("location")).toBe(ORIGIN)
    expect(signedIn(ada)).toBe(true)
  })

  it("expiry: the right code 10 minutes later is Verification (the flow itself lives 15)", async () => {
    const { requestCode, enterCode, client, log } = app()
    const { mail } = await requestCode("bob@example.test")
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60 * 1000 + 1000 })
    expect((await enterCode(codeIn(mail))).headers.get("location")).toBe(VERIFICATION)
    expect(signedIn(client)).toBe(false)
    expect(log.errors.at(-1)?.message).toBe("The sign-in code has expired.")
  })

  it("another address: Alice's code typed in Mallory's flow is wrong; Alice's flow still takes it", async () => {
    const alice = app()
    const mallory = app()
    const { mail } = await alice.requestCode("alice@example.test")
    await mallory.requestCode("mallory@example.test")
    const tried = await mallory.enterCode(codeIn(mail))
    expect(tried.status).toBe(200)
    expect(await tried.text()).toContain("That code is not right.")
    expect(signedIn(mallory.client)).toBe(false)
    expect((await alice.enterCode(codeIn(mail))).headers.get("location")).toBe(ORIGIN)
  })

  it("another address: an `email` field sent with the code does not change who signs in", async () => {
    const { requestCode, client } = app()
    const { mail } = await requestCode("carol@example.test")
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/email-code", { form: { csrfToken, step: "code", code: codeIn(mail), email: "mallory@example.test" } })
    const session = (await (await client.send("/auth/session")).json()) as { user: { email: string } }
    expect(session.user.email).toBe("carol@example.test")
  })

  it("replay: the code posted again with the flow cookie it was typed with signs nobody in", async () => {
    const { requestCode, client, config, log } = app()
    const { mail } = await requestCode("dave@example.test")
    const flowCookie = client.jar.get(FLOW_COOKIE) as string
    expect(flowCookie).toBeTruthy()
    const csrfToken = await client.csrf()
    const form = { csrfToken, step: "code", code: codeIn(mail) }
    expect((await client.send("/auth/callback/email-code", { form })).headers.get("location")).toBe(ORIGIN)

    const attacker = new AuthClient(config)
    attacker.jar.cookies.set(FLOW_COOKIE, flowCookie)
    for (const [name, value] of client.jar.cookies) if (name.startsWith("authjs.csrf")) attacker.jar.cookies.set(name, value)
    const replay = await attacker.send("/auth/callback/email-code", { form })
    expect(replay.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(signedIn(attacker)).toBe(false)
    expect(types(log.errors)).toEqual(["FlowStateError"])
  })

  it("at rest: the flow state holds an HMAC of the code, never the code", async () => {
    const { requestCode, client } = app()
    const { mail } = await requestCode("erin@example.test")
    const id = client.jar.get(FLOW_COOKIE) as string
    const sealed = storeName === "the cookie flow store" ? id : ((await peers.redis.get(`sec-flow:${FLOW_COOKIE}:${id}`)) as string)
    const snapshot = JSON.stringify((await unsealEnvelope(sealed, [client.config.secret as string], FLOW_COOKIE)).snapshot)
    expect(snapshot).toMatch(/"hash":"[0-9a-f]{64}"/)
    expect(snapshot).not.toContain(codeIn(mail))
  })

  it("the signIn callback is asked before anything is sent (verificationRequest) and again before the session", async () => {
    const seen: unknown[] = []
    const refuseMallory = app({
      callbacks: { signIn: ({ email, user }) => (seen.push(email ?? user.email), user.email !== "mallory@example.test") },
    })
    const before = peers.smtp.messages.length
    const { res } = await refuseMallory.requestCode("mallory@example.test", { noMail: true })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(peers.smtp.messages).toHaveLength(before)

    const { mail } = await refuseMallory.requestCode("frank@example.test")
    expect((await refuseMallory.enterCode(codeIn(mail))).headers.get("location")).toBe(ORIGIN)
    expect(seen).toEqual([{ verificationRequest: true }, { verificationRequest: true }, "frank@example.test"])
  })

  it("rate limit: the 4th code for one address within 15 minutes is refused (emailAddress) and not sent", async () => {
    const { requestCode, log } = app({ rateLimit: true })
    for (let i = 0; i < 3; i++) expect((await requestCode("grace@example.test")).res.status).toBe(200)
    const before = peers.smtp.messages.length
    const { res } = await requestCode("Grace@example.test", { noMail: true })
    expect(res.headers.get("location")).toMatch(new RegExp(`^${ORIGIN}/auth/signin\\?error=RateLimited&retryIn=\\d+$`))
    expect(res.headers.get("ratelimit-policy")).toBe('"emailAddress";q=3;w=900')
    expect(types(log.errors)).toEqual(["RateLimited"])
    expect(peers.smtp.messages).toHaveLength(before)
  })
})
