/**
 * The `account` of an OAuth sign-in, as Auth.js hands it out: the `signIn` and `jwt` callbacks and the
 * `signIn` event get the whole token response (`expires_in`, a provider's extras such as GitHub Apps'
 * `refresh_token_expires_in`) plus provider, type and providerAccountId; only the adapter's `linkAccount`
 * and the `linkAccount` event get the provider's `account()` of it (Auth.js' default fields unless the
 * provider has its own), with `userId`. The same sign-in runs against `@auth/core`'s `Auth` and
 * authchart's, with a loopback provider whose token endpoint adds the extra field.
 */
import { Auth as AuthJs } from "@auth/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { Auth, type AuthConfig } from "../src/index.js"
import { ORIGIN, SECRET } from "./helpers.js"
import { type Handler, type LoopbackOAuth, signInAtLoopback, startLoopbackOAuth } from "./support/loopback-oauth.js"

const TOKENS = {
  access_token: "at-1",
  token_type: "bearer",
  expires_in: 3600,
  refresh_token: "rt-1",
  refresh_token_expires_in: 15897600,
  scope: "read:user",
}

let idp: LoopbackOAuth
beforeAll(async () => {
  idp = await startLoopbackOAuth({ tokens: TOKENS })
})
afterAll(() => idp.close())

interface Seen {
  signIn: Record<string, unknown>[]
  jwt: Record<string, unknown>[]
  signInEvent: Record<string, unknown>[]
  linkAccountEvent: Record<string, unknown>[]
  adapterLinkAccount: Record<string, unknown>[]
}

function configOf(account?: (tokens: Record<string, unknown>) => Record<string, unknown>) {
  const seen: Seen = { signIn: [], jwt: [], signInEvent: [], linkAccountEvent: [], adapterLinkAccount: [] }
  const adapter = MemoryAdapter()
  const linkAccount = adapter.linkAccount.bind(adapter)
  const config = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    session: { strategy: "jwt" as const },
    adapter: {
      ...adapter,
      linkAccount: (a: Parameters<typeof linkAccount>[0]) => {
        seen.adapterLinkAccount.push({ ...a })
        return linkAccount(a)
      },
    },
    providers: [idp.provider(account ? { account } : {})],
    callbacks: {
      signIn: ({ account: a }: { account?: unknown }) => {
        seen.signIn.push({ ...(a as object) })
        return true
      },
      jwt: ({ token, account: a }: { token: Record<string, unknown>; account?: unknown }) => {
        if (a) seen.jwt.push({ ...(a as object) })
        return token
      },
    },
    events: {
      signIn: ({ account: a }: { account?: unknown }) => void seen.signInEvent.push({ ...(a as object) }),
      linkAccount: ({ account: a }: { account: unknown }) => void seen.linkAccountEvent.push({ ...(a as object) }),
    },
  }
  return { config, seen }
}

const sides: Record<string, (config: ReturnType<typeof configOf>["config"]) => Handler> = {
  "Auth.js": (config) => (request) => AuthJs(request, config as unknown as Parameters<typeof AuthJs>[1]),
  authchart: (config) => (request) => Auth(request, config as unknown as AuthConfig),
}

/** A sign-in with the loopback provider: CSRF, POST /signin/acme, then the callback with a code. */
async function signIn(handle: Handler): Promise<Response> {
  const { authorize, response } = await signInAtLoopback(handle, ORIGIN)
  expect(authorize.origin + authorize.pathname).toBe(`${idp.base}/authorize`)
  return response
}

/** The account as seen, with what differs by run (the user id, the clock) fixed. */
const fixed = (account: Record<string, unknown> | undefined) => {
  expect(account).toBeDefined()
  const { userId, expires_at, ...rest } = account ?? {}
  expect(typeof expires_at).toBe("number")
  expect(Math.abs(Number(expires_at) - (Math.floor(Date.now() / 1000) + TOKENS.expires_in))).toBeLessThan(5)
  return userId === undefined ? rest : { ...rest, userId: typeof userId }
}

const RAW = { ...TOKENS, provider: "acme", type: "oauth", providerAccountId: "4242" }
const STORED = {
  access_token: "at-1",
  token_type: "bearer",
  refresh_token: "rt-1",
  scope: "read:user",
  provider: "acme",
  type: "oauth",
  providerAccountId: "4242",
}

describe.each(Object.keys(sides))("the OAuth account, %s", (name) => {
  const side = sides[name] ?? expect.unreachable()

  it("callbacks and the signIn event: the whole token response; linkAccount: the default fields with userId", async () => {
    const { config, seen } = configOf()
    const response = await signIn(side(config))
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(ORIGIN)
    expect(seen.signIn.map(fixed)).toEqual([RAW])
    expect(seen.jwt.map(fixed)).toEqual([RAW])
    expect(seen.signInEvent.map(fixed)).toEqual([RAW])
    expect(seen.adapterLinkAccount.map(fixed)).toEqual([{ ...STORED, userId: "string" }])
    // Auth.js' event gets the account before `userId` is set (`userId: undefined`); authchart's has it
    const event = seen.linkAccountEvent.map(fixed).map(({ userId: _userId, ...rest }) => rest)
    expect(event).toEqual([STORED])
    expect(seen.linkAccountEvent[0]?.refresh_token_expires_in).toBeUndefined()
    expect(seen.linkAccountEvent[0]?.expires_in).toBeUndefined()
  })

  it("a provider's account() shapes what is stored, not what the callbacks see", async () => {
    const { config, seen } = configOf((tokens) => ({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      expires_at: tokens.expires_at,
      refresh_token_expires_at: Math.floor(Date.now() / 1000) + Number(tokens.refresh_token_expires_in),
    }))
    expect((await signIn(side(config))).status).toBe(302)
    expect(seen.signIn.map(fixed)).toEqual([RAW])
    expect(seen.jwt.map(fixed)).toEqual([RAW])
    expect(seen.signInEvent.map(fixed)).toEqual([RAW])
    // a returning user's account is linked already: no second linkAccount, account() not asked again
    const calls = { count: 0 }
    const counted = configOf((tokens) => {
      calls.count++
      return { access_token: tokens.access_token }
    })
    const handle = side(counted.config)
    expect((await signIn(handle)).status).toBe(302)
    expect((await signIn(handle)).status).toBe(302)
    expect(calls.count).toBe(1)
    expect(counted.seen.adapterLinkAccount).toHaveLength(1)
    expect(counted.seen.jwt.map(fixed)).toEqual([RAW, RAW])
    const [stored] = seen.adapterLinkAccount.map(fixed)
    expect(stored).toEqual({
      access_token: "at-1",
      refresh_token: "rt-1",
      refresh_token_expires_at: expect.any(Number),
      provider: "acme",
      type: "oauth",
      providerAccountId: "4242",
      userId: "string",
    })
  })

  it("the session JSON of a profile without a picture: no `image` key (Auth.js' default profile leaves it out)", async () => {
    const { config } = configOf()
    const handle = side(config)
    const signedIn = await signIn(handle)
    const cookie = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(";")[0] ?? "")
      .find((pair) => pair.startsWith("authjs.session-token="))
    const session = await (await handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: cookie ?? "" } }))).json()
    // authchart adds when the user signed in (`authTime`, for step-up); Auth.js has no such field
    const authTime = name === "authchart" ? { authTime: expect.any(Number) } : {}
    expect(session).toEqual({ user: { name: "Ada", email: "ada@example.com" }, expires: expect.any(String), ...authTime })
    expect(Object.keys(session.user)).toEqual(["name", "email"])
  })
})
