/**
 * `Auth(request, config)` as a web handler: every action of the route table, with statuses, headers,
 * JSON shapes and cookies as in Auth.js v5 (and authchart's deliberate differences).
 */
import { types } from "node:util"
import { describe, expect, it, vi } from "vitest"
import { Auth, CredentialsSignin, raw, skipCSRFCheck } from "../src/index.js"
import type { AuthConfig } from "../src/index.js"
import { decode } from "../src/jwt.js"
import { formValue, parseForm } from "../src/runtime/http/body.js"
import fc from "fast-check"
import Credentials from "../src/providers/credentials.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, setCookies, tamperJwe } from "./helpers.js"

const alice = { id: "1", name: "Alice", email: "alice@example.test", image: "https://img.test/a.png" }

function makeConfig(extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: (c) => (c.username === "alice" && c.password === "pw" ? alice : null),
      }),
    ],
    ...extra,
  }
  return { config, log }
}

async function signIn(client: AuthClient, fields: Record<string, string> = {}) {
  const csrfToken = await client.csrf()
  return client.send("/auth/callback/credentials", {
    form: { csrfToken, username: "alice", password: "pw", ...fields },
  })
}

const NO_CACHE = { "cache-control": "private, no-cache, no-store", expires: "0", pragma: "no-cache" }

describe("GET /providers", () => {
  it("lists every provider with its URLs", async () => {
    const client = new AuthClient(makeConfig().config)
    const res = await client.send("/auth/providers")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(await res.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${ORIGIN}/auth/signin/credentials`,
        callbackUrl: `${ORIGIN}/auth/callback/credentials`,
      },
    })
  })
})

describe("GET /csrf", () => {
  it("returns a 64-hex token, no-cache headers and the token|hash cookie", async () => {
    const client = new AuthClient(makeConfig().config)
    const res = await client.send("/auth/csrf")
    expect(res.status).toBe(200)
    for (const [k, v] of Object.entries(NO_CACHE)) expect(res.headers.get(k)).toBe(v)
    const { csrfToken } = (await res.json()) as { csrfToken: string }
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/)
    const [cookie] = setCookies(res)
    expect(cookie?.name).toBe("authjs.csrf-token")
    expect(cookie?.value).toMatch(new RegExp(`^${csrfToken}\\|[0-9a-f]{64}$`))
    expect(cookie?.attributes).toMatchObject({ path: "/", httponly: true, samesite: "Lax" })
  })

  it("keeps a valid token and does not set the cookie again", async () => {
    const client = new AuthClient(makeConfig().config)
    const first = await client.csrf()
    const res = await client.send("/auth/csrf")
    expect(((await res.json()) as { csrfToken: string }).csrfToken).toBe(first)
    expect(setCookies(res)).toHaveLength(0)
  })

  it("uses __Host- on https", async () => {
    const client = new AuthClient(makeConfig().config, "https://app.test")
    const res = await client.send("/auth/csrf")
    expect(setCookies(res)[0]?.name).toBe("__Host-authjs.csrf-token")
    expect(setCookies(res)[0]?.attributes.secure).toBe(true)
  })

  it("answers 404 and clears the cookie with skipCSRFCheck", async () => {
    const { config, log } = makeConfig({ skipCSRFCheck })
    const client = new AuthClient(config)
    const res = await client.send("/auth/csrf")
    expect(res.status).toBe(404)
    expect(await res.text()).toBe("")
    expect(setCookies(res)[0]).toMatchObject({ name: "authjs.csrf-token", value: "" })
    expect(setCookies(res)[0]?.attributes["max-age"]).toBe("0")
    expect(log.warnings).toContain("csrf-disabled")
  })
})

describe("credentials sign-in and the JWT session", () => {
  it("signs in: 303 to the callbackUrl, session cookie with Expires, then GET /session", async () => {
    const { config } = makeConfig()
    const client = new AuthClient(config)
    const res = await signIn(client, { callbackUrl: "/dashboard" })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    const session = setCookies(res).find((c) => c.name === "authjs.session-token")
    expect(session?.attributes).toMatchObject({ path: "/", httponly: true, samesite: "Lax" })
    expect(session?.attributes.expires).toBeDefined()
    expect(session?.attributes["max-age"]).toBeUndefined()

    const me = await client.send("/auth/session")
    expect(me.status).toBe(200)
    for (const [k, v] of Object.entries(NO_CACHE)) expect(me.headers.get(k)).toBe(v)
    const body = (await me.json()) as { user: unknown; expires: string }
    expect(body.user).toEqual({ name: "Alice", email: "alice@example.test", image: "https://img.test/a.png" })
    expect(new Date(body.expires).getTime()).toBe(new Date(session?.attributes.expires as string).getTime())
  })

  it("does not re-encrypt the session on every read (only when changed or older than updateAge)", async () => {
    const client = new AuthClient(makeConfig().config)
    await signIn(client)
    const res = await client.send("/auth/session")
    expect(setCookies(res)).toHaveLength(0)
    const stale = new AuthClient(makeConfig({ session: { updateAge: 0 } }).config)
    await signIn(stale)
    const refreshed = await stale.send("/auth/session")
    expect(setCookies(refreshed).map((c) => c.name)).toEqual(["authjs.session-token"])
  })

  it("re-encrypts when the jwt callback changes the token", async () => {
    let calls = 0
    const client = new AuthClient(makeConfig({ callbacks: { jwt: ({ token }) => ({ ...token, seen: ++calls }) } }).config)
    await signIn(client)
    const res = await client.send("/auth/session")
    expect(setCookies(res).map((c) => c.name)).toEqual(["authjs.session-token"])
  })

  it("keeps a claim named __proto__ from the jwt callback as a plain claim (JSON-parsed data can carry one)", async () => {
    // the session token is built from the callback's token plus iat, exp, jti and the session id; a copy
    // through Object.assign would set the prototype instead, dropping the claim and making its fields inherited
    const extra = JSON.parse('{"__proto__": {"role": "admin"}}') as Record<string, unknown>
    const { config } = makeConfig({ callbacks: { jwt: ({ token }) => ({ ...token, ...extra }) } })
    const client = new AuthClient(config)
    const res = await signIn(client)
    const value = setCookies(res).find((c) => c.name === "authjs.session-token")?.value as string
    const claims = await decode({ token: value, secret: SECRET, salt: "authjs.session-token" })
    expect(Object.getPrototypeOf(claims)).toBe(Object.prototype)
    expect(Object.hasOwn(claims ?? {}, "__proto__")).toBe(true)
    expect(Object.getOwnPropertyDescriptor(claims, "__proto__")?.value).toEqual({ role: "admin" })
    expect(claims).toMatchObject({ sub: "1", sessionId: expect.any(String), jti: expect.any(String) })
  })

  it("passes user, account and trigger to jwt, and token to session", async () => {
    const seen: Record<string, unknown>[] = []
    const { config } = makeConfig({
      callbacks: {
        jwt: (params) => {
          seen.push({ ...params })
          return { ...params.token, role: "admin" }
        },
        session: ({ session, token }) => ({ ...session, role: token.role }) as never,
      },
    })
    const client = new AuthClient(config)
    await signIn(client)
    expect(seen[0]).toMatchObject({
      token: { name: "Alice", email: "alice@example.test", picture: alice.image, sub: "1" },
      user: alice,
      account: { providerAccountId: "1", type: "credentials", provider: "credentials" },
      trigger: "signIn",
    })
    const body = (await (await client.send("/auth/session")).json()) as { role: string }
    expect(body.role).toBe("admin")
    expect(seen[1]).not.toHaveProperty("trigger")
  })

  it("a cookie seen before skips the crypto but never shares state between requests, and still expires", async () => {
    let calls = 0
    const { config } = makeConfig({
      jwt: { maxAge: 120 },
      callbacks: {
        jwt: ({ token, trigger }) => {
          if (trigger) return token
          calls++
          if (token.mutated !== undefined) throw new Error("state leaked between requests")
          token.mutated = true // an in-place change must not leak into the next request's token
          return token
        },
      },
    })
    const client = new AuthClient(config)
    await signIn(client)
    const cookie = client.jar.get("authjs.session-token") as string
    for (let i = 0; i < 3; i++) {
      const reader = new AuthClient(config)
      reader.jar.cookies.set("authjs.session-token", cookie)
      expect(await (await reader.send("/auth/session")).json()).not.toBeNull()
    }
    expect(calls).toBe(3)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60 * 1000 })
    try {
      const late = new AuthClient(config)
      late.jar.cookies.set("authjs.session-token", cookie)
      expect(await (await late.send("/auth/session")).json()).toBeNull()
    } finally {
      vi.useRealTimers()
    }
  })

  it("POST /session with csrf runs jwt with trigger update and the data", async () => {
    const updates: unknown[] = []
    const { config } = makeConfig({
      callbacks: {
        jwt: ({ token, trigger, session }) => {
          if (trigger === "update") {
            updates.push(session)
            return { ...token, name: (session as { name: string }).name }
          }
          return token
        },
      },
    })
    const client = new AuthClient(config)
    await signIn(client)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/session", { json: { csrfToken, data: { name: "Alicia" } } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { user: { name: string } }).user.name).toBe("Alicia")
    expect(updates).toEqual([{ name: "Alicia" }])
    expect(((await (await client.send("/auth/session")).json()) as { user: { name: string } }).user.name).toBe("Alicia")
  })

  it("POST /session without csrf answers 400 null", async () => {
    const client = new AuthClient(makeConfig().config)
    await signIn(client)
    const res = await client.send("/auth/session", { json: { data: { name: "x" } } })
    expect(res.status).toBe(400)
    expect(await res.json()).toBeNull()
  })

  it("no session: 200 null", async () => {
    const res = await new AuthClient(makeConfig().config).send("/auth/session")
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
  })

  it("jwt callback returning null signs the user out", async () => {
    let allow = true
    const client = new AuthClient(makeConfig({ callbacks: { jwt: ({ token }) => (allow ? token : null) } }).config)
    await signIn(client)
    allow = false
    const res = await client.send("/auth/session")
    expect(await res.json()).toBeNull()
    expect(setCookies(res)[0]).toMatchObject({ name: "authjs.session-token", value: "" })
  })

  it("fires signIn, session and signOut events; a throwing handler is logged, not fatal", async () => {
    const fired: string[] = []
    const { config, log } = makeConfig({
      events: {
        signIn: ({ user }) => void fired.push(`signIn:${user.id}`),
        session: () => {
          fired.push("session")
          throw new Error("boom")
        },
        signOut: ({ token }) => void fired.push(`signOut:${token?.sub}`),
      },
    })
    const client = new AuthClient(config)
    await signIn(client)
    expect((await client.send("/auth/session")).status).toBe(200)
    const csrfToken = await client.csrf()
    const out = await client.send("/auth/signout", { form: { csrfToken } })
    expect(out.status).toBe(303)
    expect(fired).toEqual(["signIn:1", "session", "signOut:1"])
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["EventError"])
  })
})

describe("authorize's request", () => {
  /** Signs in through an `authorize` and returns what it saw of its `request` argument. */
  async function seen(authorize: (c: Record<string, unknown>, request: Request) => Promise<Record<string, unknown>>) {
    let saw: Record<string, unknown> | undefined
    const config = makeConfig({
      providers: [
        Credentials({
          credentials: { username: {} },
          authorize: async (c, request) => {
            saw = await authorize(c, request)
            return alice
          },
        }),
      ],
    }).config
    const client = new AuthClient(config)
    const res = await signIn(client, {})
    expect(res.status).toBe(303)
    return saw
  }

  const read = async (request: Request) => ({
    isRequest: request instanceof Request,
    method: request.method,
    url: request.url,
    contentType: request.headers.get("content-type"),
    body: await request.json(),
  })
  const expected = {
    isRequest: true,
    method: "POST",
    url: `${ORIGIN}/auth/callback/credentials`,
    contentType: "application/json",
    body: { csrfToken: expect.any(String), username: "alice", password: "pw" },
  }

  it("is a web Request with the form fields as JSON when authorize declares it", async () => {
    expect(await seen((_c, request) => read(request))).toEqual(expected)
  })

  it("is a Request of its own, not a stand-in, when authorize declares it (fetch() refuses a stand-in)", async () => {
    expect(await seen(async (_c, request) => ({ proxy: types.isProxy(request) }))).toEqual({ proxy: false })
  })

  it("is the same Request, built on first use, when authorize declares only the credentials", async () => {
    let saw: Record<string, unknown> | undefined
    const config = makeConfig({
      providers: [
        Credentials({
          credentials: { username: {} },
          // one declared parameter: the request still arrives as the second argument
          authorize: async function (this: unknown, _c: unknown) {
            // biome-ignore lint/complexity/noArguments: the test reads the undeclared second argument
            saw = await read(arguments[1] as Request)
            return alice
          } as (c: Record<string, unknown>) => Promise<typeof alice>,
        }),
      ],
    }).config
    const res = await signIn(new AuthClient(config), {})
    expect(res.status).toBe(303)
    expect(saw).toEqual(expected)
  })
})

describe("credentials failures", () => {
  it("wrong password: 303 to /signin?error=CredentialsSignin&code=credentials, no session", async () => {
    const { config, log } = makeConfig()
    const client = new AuthClient(config)
    const res = await signIn(client, { password: "nope" })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`)
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["CredentialsSignin"])
  })

  it("a CredentialsSignin subclass sends its own code", async () => {
    class Locked extends CredentialsSignin {
      override code = "account_locked"
    }
    const client = new AuthClient(
      makeConfig({
        providers: [
          Credentials({
            authorize: () => {
              throw new Locked()
            },
          }),
        ],
      }).config,
    )
    const res = await signIn(client)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=account_locked`)
  })

  it("authorize throwing a plain error: error=Configuration, logged with its cause", async () => {
    const { config, log } = makeConfig({
      providers: [
        Credentials({
          authorize: () => {
            throw new Error("db down: password=hunter2")
          },
        }),
      ],
    })
    const res = await signIn(new AuthClient(config))
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.errors).toHaveLength(1)
    expect((log.errors[0] as { type?: string }).type).toBe("CallbackRouteError")
    expect(log.errors[0]?.message).not.toContain("hunter2")
  })

  it("missing or wrong csrfToken: 303 to /signin?error=MissingCSRF", async () => {
    const client = new AuthClient(makeConfig().config)
    await client.csrf()
    for (const form of [{}, { csrfToken: "f".repeat(64) }] as Record<string, string>[]) {
      const res = await client.send("/auth/callback/credentials", { form: { username: "alice", password: "pw", ...form } })
      expect(res.status).toBe(303)
      expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    }
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  })

  it("a forged csrf cookie (hash not made with our secret) is replaced, not trusted", async () => {
    const client = new AuthClient(makeConfig().config)
    const token = "a".repeat(64)
    client.jar.cookies.set("authjs.csrf-token", `${token}|${"b".repeat(64)}`)
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken: token, username: "alice", password: "pw" } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(client.jar.get("authjs.csrf-token")).not.toContain(token)
  })

  /** A callback's answer given at once, as a promise, or as a thenable that is not a promise: each is waited for alike. */
  const answered = <T>(how: "at once" | "promise" | "thenable", value: T): T | PromiseLike<T> => {
    if (how === "at once") return value
    if (how === "promise") return Promise.resolve(value)
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a promise is the case under test
    return { then: (resolve) => Promise.resolve(value).then(resolve) }
  }

  it.each([
    "at once",
    "promise",
    "thenable",
  ] as const)("signIn callback (answered %s) false → AccessDenied; throw → AccessDenied; string → redirect", async (how) => {
    for (const [signInResult, location] of [
      [false, `${ORIGIN}/auth/error?error=AccessDenied`],
      ["throw", `${ORIGIN}/auth/error?error=AccessDenied`],
      ["/not-yet", `${ORIGIN}/not-yet`],
      ["https://evil.test/", `${ORIGIN}`],
      [true, ORIGIN],
    ] as const) {
      const client = new AuthClient(
        makeConfig({
          callbacks: {
            signIn: () => {
              if (signInResult === "throw") throw new Error("nope")
              return answered(how, signInResult)
            },
          },
        }).config,
      )
      const res = await signIn(client)
      expect(res.headers.get("location")).toBe(location)
      expect(client.jar.get("authjs.session-token") !== undefined).toBe(signInResult === true)
    }
  })

  it.each([
    "at once",
    "promise",
    "thenable",
  ] as const)("jwt callback (answered %s) at sign-in: null issues no session, a token is sealed as returned", async (how) => {
    for (const refuse of [true, false]) {
      const client = new AuthClient(
        makeConfig({ callbacks: { jwt: ({ token }) => answered(how, refuse ? null : { ...token, role: "admin" }) } }).config,
      )
      await signIn(client)
      const sealed = client.jar.get("authjs.session-token")
      if (refuse) expect(sealed).toBeUndefined()
      else expect(await decode({ token: sealed, secret: SECRET, salt: "authjs.session-token" })).toMatchObject({ role: "admin", sub: "1" })
    }
  })

  it("signIn callback receives the credentials", async () => {
    let got: unknown
    const client = new AuthClient(makeConfig({ callbacks: { signIn: (p) => ((got = p.credentials), true) } }).config)
    await signIn(client)
    expect(got).toMatchObject({ username: "alice", password: "pw" })
  })

  it("GET /callback/credentials is not allowed: error=Configuration", async () => {
    const res = await new AuthClient(makeConfig().config).send("/auth/callback/credentials")
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("POST /signin/credentials goes to the sign-in page; unknown provider is Configuration", async () => {
    const client = new AuthClient(makeConfig().config)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signin/credentials", { form: { csrfToken } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin`)
    const unknown = await client.send("/auth/signin/nope", { form: { csrfToken } })
    expect(unknown.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })
})

describe("callbackUrl safety", () => {
  it.each([
    ["https://evil.test/x", ORIGIN],
    ["//evil.test", `${ORIGIN}//evil.test`],
    ["/\\evil.test", `${ORIGIN}//evil.test`],
    ["javascript:alert(1)", ORIGIN],
    ["not a url", ORIGIN],
    [`${ORIGIN}/ok?x=1`, `${ORIGIN}/ok?x=1`],
  ])("callbackUrl %s lands on %s (same origin only)", async (callbackUrl, expected) => {
    const client = new AuthClient(makeConfig().config)
    const res = await signIn(client, { callbackUrl })
    const location = res.headers.get("location") as string
    expect(new URL(location).origin).toBe(ORIGIN)
    expect(location).toBe(expected)
  })
})

describe("sign-out", () => {
  it("POST /signout clears every session chunk and redirects to callbackUrl", async () => {
    const client = new AuthClient(makeConfig().config)
    await signIn(client)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/signout", { form: { csrfToken, callbackUrl: "/bye" } })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/bye`)
    expect(setCookies(res).find((c) => c.name === "authjs.session-token")?.attributes["max-age"]).toBe("0")
    expect(await (await client.send("/auth/session")).json()).toBeNull()
  })

  it("POST /signout without csrf keeps the session", async () => {
    const client = new AuthClient(makeConfig().config)
    await signIn(client)
    const res = await client.send("/auth/signout", { form: {} })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(await (await client.send("/auth/session")).json()).not.toBeNull()
  })
})

describe("pages", () => {
  it("GET /signin renders the page with a csrf token and frame-ancestors 'none'", async () => {
    const client = new AuthClient(makeConfig().config)
    const res = await client.send("/auth/signin?callbackUrl=%2Fafter")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/html")
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    const html = await res.text()
    const token = client.jar.get("authjs.csrf-token")?.split("|")[0] as string
    expect(html).toContain(`value="${token}"`)
    expect(html).toContain(`action="${ORIGIN}/auth/callback/credentials"`)
    expect(html).toContain(`value="${ORIGIN}/after"`)
  })

  it("pages overrides redirect with an absolute, encoded callbackUrl", async () => {
    const client = new AuthClient(makeConfig({ pages: { signIn: "/login", signOut: "/logout", error: "/oops" } }).config)
    const res = await client.send("/auth/signin?callbackUrl=%2Fafter&error=CredentialsSignin")
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/login?callbackUrl=${encodeURIComponent(`${ORIGIN}/after`)}&error=CredentialsSignin`)
    expect((await client.send("/auth/signout")).headers.get("location")).toBe(`${ORIGIN}/logout`)
    expect((await client.send("/auth/error?error=AccessDenied")).headers.get("location")).toBe(`${ORIGIN}/oops?error=AccessDenied`)
  })

  it.each([
    ["Configuration", 500],
    ["AccessDenied", 403],
    ["Verification", 403],
    ["Whatever", 200],
  ])("GET /error?error=%s is %i", async (error, status) => {
    const res = await new AuthClient(makeConfig().config).send(`/auth/error?error=${error}`)
    expect(res.status).toBe(status)
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })

  it("GET /signout renders a form posting to /signout; GET /verify-request renders", async () => {
    const client = new AuthClient(makeConfig().config)
    const out = await client.send("/auth/signout")
    expect(await out.text()).toContain(`action="${ORIGIN}/auth/signout"`)
    const verify = await client.send("/auth/verify-request")
    expect(verify.status).toBe(200)
    expect(await verify.text()).toContain("Check your email")
  })
})

describe("routing and bad input", () => {
  /** What URLSearchParams gives, as the form fields: the reference the form parser must equal. */
  const reference = (text: string) => Object.fromEntries(new URLSearchParams(text))
  /** Fields, their order, and the prototype (a "__proto__" field is an own field, never the prototype). */
  const shape = (fields: Record<string, string>) => ({ entries: Object.entries(fields), proto: Object.getPrototypeOf(fields) })

  it.each([
    "",
    "&",
    "&&a=1&&",
    "a",
    "a=",
    "=",
    "=x",
    "a=b=c",
    "a=1&a=2&b=3&a=4",
    "a+b=c+d%2Be",
    "%61%62=%63",
    "name=%C3%A9t%C3%A9&x=%F0%9F%98%80",
    "bad=%zz&ok=1",
    "trunc=%4",
    "trunc=%",
    "notutf8=%FF%FE&ok=1",
    "surrogate=%ED%A0%80",
    "overlong=%C0%AF",
    "lone=\uD800&ok=1",
    "pair=\uD83D\uDE00",
    "literal=é+ü",
    "__proto__=x&constructor=y&toString=z",
    "__proto__=%zz",
    "2=b&1=a&x=c",
    "bom=%EF%BB%BF",
    "nul=%00",
  ])("a form body %j is read as URLSearchParams reads it", (text) => {
    expect(shape(parseForm(text))).toEqual(shape(reference(text)))
  })

  it("any form body is read as URLSearchParams reads it (property)", () => {
    const piece = fc.constantFrom(
      "a",
      "b",
      "=",
      "&",
      "+",
      "%",
      "%2",
      "%2B",
      "%3D",
      "%26",
      "%C3",
      "%A9",
      "%FF",
      "%zz",
      "é",
      "\uD800",
      "\uDC00",
      "😀",
      " ",
      "__proto__",
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join("")
        expect(shape(parseForm(text))).toEqual(shape(reference(text)))
      }),
      { numRuns: 3000 },
    )
  })

  it("a field of any query or form is looked up as URLSearchParams.get finds it (first of a repeated name, null when absent)", () => {
    const piece = fc.constantFrom("a", "b", "=", "&", "+", "%", "%2", "%61", "%3D", "%26", "%C3", "%A9", "%FF", "%zz", "é", "\uD800", " ")
    const name = fc.constantFrom("a", "b", "a b", "", "ab", "=", "é", "\uFFFD", "c")
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), name, (pieces, wanted) => {
        const text = pieces.join("")
        expect(formValue(text, wanted)).toBe(new URLSearchParams(text).get(wanted))
      }),
      { numRuns: 5000 },
    )
    expect(formValue("code=x&state=s%2By&iss=http%3A%2F%2Fidp&code=z", "code")).toBe("x")
    expect(formValue("code=x&state=s%2By&iss=http%3A%2F%2Fidp", "iss")).toBe("http://idp")
    expect(formValue("bad=%zz&step=2", "step")).toBe("2")
    expect(formValue("step", "step")).toBe("")
  })

  it.each([
    ["PUT", "/auth/session"],
    ["GET", "/auth/nope"],
    ["GET", "/auth/session/extra"],
    ["POST", "/auth/callback/credentials/extra"],
    ["GET", "/auth/csrf/credentials"],
    ["GET", "/authsession"],
    ["GET", "/auth"],
  ])('%s %s → 400 "Bad request."', async (method, path) => {
    const { config, log } = makeConfig()
    const res = await new AuthClient(config).send(path, { method })
    expect(res.status).toBe(400)
    expect(await res.json()).toBe("Bad request.")
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["UnknownAction"])
  })

  it.each([
    ["POST", "/auth/csrf"],
    ["POST", "/auth/providers"],
    ["POST", "/auth/error"],
    ["GET", "/auth/signin/credentials"],
  ])("%s %s (valid action, wrong method) → error=Configuration", async (method, path) => {
    const res = await new AuthClient(makeConfig().config).send(path, method === "POST" ? { form: {} } : {})
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("malformed JSON body → 400", async () => {
    const res = await new AuthClient(makeConfig().config).send("/auth/callback/credentials", {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json" },
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toBe("Bad request.")
  })

  it("a malformed form body is read leniently and answered, never crashed on", async () => {
    const client = new AuthClient(makeConfig().config)
    const res = await client.send("/auth/callback/credentials", {
      method: "POST",
      body: "csrfToken=%ZZ&&=&username=%E0%A4%A&password",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
  })

  it("a huge cookie header is answered, not crashed on", async () => {
    const client = new AuthClient(makeConfig().config)
    const res = await client.send("/auth/session", { headers: { cookie: `junk=${"x".repeat(200_000)}; a=%ZZ` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
  })

  it.each([
    ["tampered", (t: string) => tamperJwe(t)],
    ["truncated", (t: string) => t.slice(0, 40)],
    ["garbage", () => "not-a-jwe"],
  ])("a %s session cookie gives null, clears the cookie, logs JWTSessionError without the token", async (_, mangle) => {
    const { config, log } = makeConfig()
    const client = new AuthClient(config)
    await signIn(client)
    const token = client.jar.get("authjs.session-token") as string
    client.jar.cookies.set("authjs.session-token", mangle(token))
    const res = await client.send("/auth/session")
    expect(res.status).toBe(200)
    expect(await res.json()).toBeNull()
    expect(setCookies(res)[0]).toMatchObject({ name: "authjs.session-token", value: "" })
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["JWTSessionError"])
    expect(JSON.stringify(log.errors.map((e) => [e.message, e.cause]))).not.toContain(token.slice(0, 30))
  })

  it("a session cookie from another secret or an expired one reads as null", async () => {
    const a = new AuthClient(makeConfig().config)
    await signIn(a)
    const other = new AuthClient(makeConfig({ secret: "another-secret-also-long-enough-0123456789" }).config)
    other.jar.cookies.set("authjs.session-token", a.jar.get("authjs.session-token") as string)
    expect(await (await other.send("/auth/session")).json()).toBeNull()
    const shortLived = new AuthClient(makeConfig({ jwt: { maxAge: -60 } }).config)
    await signIn(shortLived)
    expect(await (await shortLived.send("/auth/session")).json()).toBeNull()
  })

  it("X-Auth-Return-Redirect turns redirects (success and error) into 200 { url }", async () => {
    const client = new AuthClient(makeConfig().config)
    const csrfToken = await client.csrf()
    const ok = await client.send("/auth/callback/credentials", {
      form: { csrfToken, username: "alice", password: "pw", callbackUrl: "/x" },
      headers: { "X-Auth-Return-Redirect": "1" },
    })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ url: `${ORIGIN}/x` })
    expect(client.jar.get("authjs.session-token")).toBeDefined()
    const bad = await client.send("/auth/callback/credentials", {
      form: { csrfToken, username: "alice", password: "no" },
      headers: { "X-Auth-Return-Redirect": "1" },
    })
    expect(await bad.json()).toEqual({ url: `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials` })
  })

  it("raw returns the internal response and throws AuthErrors", async () => {
    const { config } = makeConfig({ raw })
    const internal = await Auth(new Request(`${ORIGIN}/auth/providers`), config as AuthConfig & { raw: symbol })
    expect(internal).toMatchObject({ status: 200, body: { credentials: { id: "credentials" } } })
    const csrf = (await Auth(new Request(`${ORIGIN}/auth/csrf`), config as AuthConfig & { raw: symbol })) as {
      cookies: { name: string; value: string }[]
      body: { csrfToken: string }
    }
    const cookie = `authjs.csrf-token=${encodeURIComponent(csrf.cookies[0]?.value as string)}`
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: csrf.body.csrfToken, username: "alice", password: "bad" }),
    })
    await expect(Auth(request, config as AuthConfig & { raw: symbol })).rejects.toBeInstanceOf(CredentialsSignin)
  })

  it("basePath is honoured on a / boundary, with special characters", async () => {
    const client = new AuthClient(makeConfig({ basePath: "/api/a.uth+" }).config)
    expect((await client.send("/api/a.uth+/session")).status).toBe(200)
    expect((await client.send("/api/aXuth+/session")).status).toBe(400)
  })
})

describe("options", () => {
  it("jwt.encode / jwt.decode / jwt.maxAge overrides are used", async () => {
    const calls: string[] = []
    const { config } = makeConfig({
      jwt: {
        maxAge: 60,
        encode: async ({ token, maxAge }) => {
          calls.push(`encode:${maxAge}`)
          return Buffer.from(JSON.stringify(token)).toString("base64url")
        },
        decode: async ({ token }) => {
          calls.push("decode")
          return JSON.parse(Buffer.from(token as string, "base64url").toString()) as never
        },
      },
    })
    const client = new AuthClient(config)
    const res = await signIn(client)
    const expires = new Date(setCookies(res).find((c) => c.name === "authjs.session-token")?.attributes.expires as string)
    expect(Math.abs(expires.getTime() - Date.now() - 60_000)).toBeLessThan(2_000)
    const body = (await (await client.send("/auth/session")).json()) as { user: { name: string } }
    expect(body.user.name).toBe("Alice")
    // a custom encoder that writes no `iat` cannot be aged, so such sessions are refreshed on every read
    expect(calls).toEqual(["encode:60", "decode", "encode:60"])
  })

  it("debug routes debug lines to the logger, without secrets; off by default", async () => {
    const lines: [string, unknown][] = []
    const logger = { debug: (m: string, meta?: unknown) => void lines.push([m, meta]), error: () => {}, warn: () => {} }
    const client = new AuthClient({ ...makeConfig().config, debug: true, logger })
    await signIn(client)
    expect(lines.map(([m]) => m)).toContain("request")
    expect(lines.map(([m]) => m)).toContain("flow")
    expect(JSON.stringify(lines)).not.toContain("pw")
    const quiet: string[] = []
    const off = new AuthClient({ ...makeConfig().config, logger: { debug: (m: string) => void quiet.push(m) } })
    await signIn(off)
    expect(quiet).toEqual([])
  })

  it("theme colours reach the built-in pages", async () => {
    const client = new AuthClient(makeConfig({ theme: { brandColor: "#123456", colorScheme: "dark" } }).config)
    const html = await (await client.send("/auth/signin")).text()
    expect(html).toContain("#123456")
    expect(html).toContain("__next-auth-theme-dark")
  })

  it("the default console logger never prints the secret, a password or a session token", async () => {
    const printed: string[] = []
    const spies = (["error", "warn", "debug", "log"] as const).map((method) => {
      const original = console[method]
      console[method] = (...args: unknown[]) => void printed.push(args.map(String).join(" "))
      return () => (console[method] = original)
    })
    try {
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        debug: true,
        providers: [
          Credentials({
            authorize: (c) => {
              if (c.password === "boom-hunter2") throw new Error("database unavailable")
              return c.password === "right-hunter2" ? alice : null
            },
          }),
        ],
      }
      const client = new AuthClient(config)
      await signIn(client, { password: "right-hunter2" })
      const token = client.jar.get("authjs.session-token") as string
      client.jar.cookies.set("authjs.session-token", `${token}x`)
      await client.send("/auth/session")
      await signIn(client, { password: "wrong-hunter2" })
      await signIn(client, { password: "boom-hunter2" })
      await client.send("/auth/callback/credentials", { form: { password: "no-csrf-hunter2" } })
    } finally {
      for (const restore of spies) restore()
    }
    const all = printed.join("\n")
    expect(all).toContain("CredentialsSignin")
    expect(all).toContain("JWTSessionError")
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain("hunter2")
    expect(all).not.toMatch(/eyJhbGciOiJkaXIi/)
  })
})

describe("flows that arrive in later versions", () => {
  it("a WebAuthn provider without an adapter is MissingAdapter (webauthn.test.ts has the flow)", async () => {
    const { config, log } = makeConfig({
      experimental: { enableWebAuthn: true },
      providers: [{ id: "passkey", name: "Passkey", type: "webauthn" }],
    })
    const res = await new AuthClient(config).send("/auth/webauthn-options/passkey?action=register")
    expect(res.status).toBe(500)
    expect((log.errors[0] as { type?: string }).type).toBe("MissingAdapter")
  })

  it("an adapter lacking the methods database sessions call is MissingAdapterMethods, naming them", async () => {
    const { config, log } = makeConfig({ adapter: { getUser: () => null } })
    const res = await new AuthClient(config).send("/auth/session")
    expect(res.status).toBe(500)
    expect((log.errors[0] as { type?: string }).type).toBe("MissingAdapterMethods")
    expect(log.errors[0]?.message).toContain("createSession")
    expect(log.errors[0]?.message).not.toContain("getUser,")
  })
})
