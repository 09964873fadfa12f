/**
 * The cases of Auth.js' own suite (./assert-config.test.ts, ./actions/session.test.ts) that authchart
 * answers differently on purpose (README "Where authchart differs from Auth.js on purpose"), run with the
 * same requests and authchart's answer asserted, so each difference stays the documented one.
 */
import { parse as parseCookie } from "cookie"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { AdapterUser } from "../../src/index.js"
import { decode, encode } from "../../src/jwt.js"
import { MemoryAdapter, initMemory } from "./memory-adapter.js"
import { AUTH_SECRET, SESSION_COOKIE_NAME, callbacks, events, getExpires, logger, makeAuthRequest, testConfig } from "./utils.js"
import { randomString } from "./web.js"

const cookiesOf = (response: Response): Record<string, string | undefined> =>
  Object.assign({}, ...response.headers.getSetCookie().map((c) => parseCookie(c)))

beforeEach(() => {
  vi.resetAllMocks()
})
afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})

describe("assert-config: an invalid callbackUrl", () => {
  it.each([
    ["non-relative", "search param"],
    ["non-relative", "cookie"],
    ["a", "search param"],
    ["a", "cookie"],
    ["non-relative", "cookie-custom"],
    ["a", "cookie-custom"],
  ])("%s from %s is not a configuration error: the request is answered (Auth.js: 500 InvalidCallbackUrl)", async (callbackUrl, type) => {
    const cookieName = type === "cookie" ? "__Secure-authjs.callback-url" : "custom-name"
    const { response } = await makeAuthRequest({
      action: "session",
      ...(type.startsWith("cookie") ? { cookies: { [cookieName]: callbackUrl } } : { query: { callbackUrl } }),
      config: { cookies: type === "cookie-custom" ? { callbackUrl: { name: cookieName } } : undefined },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    expect(logger.error).not.toHaveBeenCalled()
  })
})

describe("GET session, JWT strategy", () => {
  const user = { name: "test", email: "test@test.com", picture: "https://test.com/test.png" }

  it("with session.updateAge 0 (re-issued on every read, as Auth.js does), Auth.js' case passes as written", async () => {
    const authConfig = testConfig({ session: { updateAge: 0 } })
    const expectedExpires = getExpires()
    vi.spyOn(callbacks, "jwt")
    vi.spyOn(callbacks, "session")
    const { response } = await makeAuthRequest({
      action: "session",
      cookies: { [SESSION_COOKIE_NAME]: await encode({ salt: SESSION_COOKIE_NAME, secret: AUTH_SECRET, token: user }) },
      config: authConfig,
    })
    const body = await response.json()
    const token = await decode({ salt: SESSION_COOKIE_NAME, secret: AUTH_SECRET, token: cookiesOf(response)[SESSION_COOKIE_NAME] })
    const { exp, iat, jti, ...actualUser } = token ?? {}
    expect([typeof exp, typeof iat, typeof jti]).toEqual(["number", "number", "string"])
    const expectedToken = { ...user, exp: expect.any(Number), iat: expect.any(Number), jti: expect.any(String) }
    const expectedSession = {
      user: { name: "test", email: "test@test.com", image: "https://test.com/test.png" },
      expires: expectedExpires.toISOString(),
    }
    expect(actualUser).toEqual(user)
    expect(body).toEqual(expectedSession)
    expect(events.session).toHaveBeenCalledWith({ session: expectedSession, token: expectedToken })
    expect(callbacks.jwt).toHaveBeenCalledWith({ token: expectedToken, session: undefined })
    expect(callbacks.session).toHaveBeenCalledWith({ session: expectedSession, token: expectedToken })
  })

  it("by default a token younger than updateAge is not re-issued, and expires is its exp (whole seconds)", async () => {
    const now = getExpires(0)
    const encoded = await encode({ salt: SESSION_COOKIE_NAME, secret: AUTH_SECRET, token: user })
    const exp = (await decode({ salt: SESSION_COOKIE_NAME, secret: AUTH_SECRET, token: encoded }))?.exp
    vi.setSystemTime(now.getTime() + 60_000)
    const { response } = await makeAuthRequest({ action: "session", cookies: { [SESSION_COOKIE_NAME]: encoded } })
    expect(response.headers.getSetCookie()).toEqual([])
    expect(await response.json()).toEqual({
      user: { name: "test", email: "test@test.com", image: "https://test.com/test.png" },
      expires: new Date((exp ?? 0) * 1000).toISOString(),
    })
  })
})

describe("GET session, database strategy", () => {
  it("answers, and passes the session callback, the expiry just written (Auth.js: the one read before)", async () => {
    vi.spyOn(callbacks, "session")
    const updatedExpires = getExpires()
    const currentExpires = getExpires(24 * 60 * 60 * 1000)
    const sessionToken = randomString(32)
    const userId = randomString(32)
    const user = {
      id: userId,
      name: "test",
      email: "test@test.com",
      image: "https://test.com/test.png",
      emailVerified: null,
    } satisfies AdapterUser
    const memory = initMemory()
    memory.users.set(userId, user)
    memory.sessions.set(sessionToken, { sessionToken, userId, expires: currentExpires })
    const { response } = await makeAuthRequest({
      action: "session",
      cookies: { [SESSION_COOKIE_NAME]: sessionToken },
      config: { adapter: MemoryAdapter(memory) },
    })
    const body = await response.json()
    expect(memory.sessions.get(sessionToken)).toEqual({ sessionToken, userId, expires: updatedExpires })
    expect(callbacks.session).toHaveBeenCalledWith({
      newSession: undefined,
      session: { user, expires: updatedExpires, sessionToken, userId },
      user,
    })
    expect(cookiesOf(response)[SESSION_COOKIE_NAME]).toBe(sessionToken)
    expect(body).toEqual({
      user: { name: "test", email: "test@test.com", image: "https://test.com/test.png" },
      expires: updatedExpires.toISOString(),
    })
  })
})
