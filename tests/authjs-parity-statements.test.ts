/**
 * Two statements of docs/migrating-from-authjs.md, checked beside `@auth/core`'s `Auth`:
 * - the callback-url cookie: both set it when the callback URL a route resolves differs from the
 *   cookie's (so `GET /signin` without `callbackUrl` sets it to the site); only Auth.js sets it on
 *   `GET /session` too;
 * - without an adapter, the JWT `sub` of an OAuth sign-in: authchart's is the same at every sign-in
 *   (derived from provider and account id), Auth.js' is random per sign-in.
 */
import { readFileSync } from "node:fs"
import { Auth as AuthJs } from "@auth/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "../src/index.js"
import { decode } from "../src/jwt.js"
import { ORIGIN, SECRET } from "./helpers.js"
import { repoRoot } from "./support/packed.js"
import { ADA, type Handler, type LoopbackOAuth, signInAtLoopback, startLoopbackOAuth } from "./support/loopback-oauth.js"

let idp: LoopbackOAuth
beforeAll(async () => {
  idp = await startLoopbackOAuth()
})
afterAll(() => idp.close())

const configOf = () => ({
  secret: SECRET,
  trustHost: true,
  basePath: "/auth",
  providers: [idp.provider()],
})
const sides: Record<string, () => Handler> = {
  "Auth.js": () => {
    const config = configOf()
    return (request) => AuthJs(request, config as unknown as Parameters<typeof AuthJs>[1])
  },
  authchart: () => {
    const config = configOf()
    return (request) => Auth(request, config as AuthConfig)
  },
}

const cookieNames = (response: Response) => response.headers.getSetCookie().map((line) => line.slice(0, line.indexOf("=")))

/** An OAuth sign-in with the loopback provider; the session token it sets. */
async function signIn(handle: Handler): Promise<string> {
  const { jar } = await signInAtLoopback(handle, ORIGIN)
  return jar.get("authjs.session-token") ?? expect.unreachable()
}

describe.each(Object.keys(sides))("%s", (name) => {
  const handler = sides[name] ?? expect.unreachable()

  it("GET /signin without callbackUrl sets the callback-url cookie (to the site); GET /session only on Auth.js", async () => {
    const handle = handler()
    const signin = await handle(new Request(`${ORIGIN}/auth/signin`))
    expect(cookieNames(signin)).toContain("authjs.callback-url")
    expect(signin.headers.getSetCookie().find((c) => c.startsWith("authjs.callback-url="))).toMatch(
      /^authjs\.callback-url=http%3A%2F%2Fapp\.test;/,
    )
    const session = await handle(new Request(`${ORIGIN}/auth/session`))
    expect(cookieNames(session).includes("authjs.callback-url")).toBe(name === "Auth.js")
  })

  it("without an adapter, a profile without email or picture: a session JSON without those keys", async () => {
    idp.userinfo = { id: "4343", name: "Grace" }
    try {
      const handle = handler()
      const token = await signIn(handle)
      const session = await (
        await handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authjs.session-token=${token}` } }))
      ).json()
      // authchart adds when the user signed in (`authTime`, for step-up); Auth.js has no such field
      const authTime = name === "authchart" ? { authTime: expect.any(Number) } : {}
      expect(session).toEqual({ user: { name: "Grace" }, expires: expect.any(String), ...authTime })
    } finally {
      idp.userinfo = ADA
    }
  })

  it("without an adapter, two OAuth sign-ins of one account: the same sub on authchart, a new random one on Auth.js", async () => {
    const handle = handler()
    const subs: unknown[] = []
    for (let i = 0; i < 2; i++) {
      const token = await signIn(handle)
      subs.push((await decode({ token, secret: SECRET, salt: "authjs.session-token" }))?.sub)
    }
    expect(subs[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(subs[0] === subs[1]).toBe(name === "authchart")
  })
})

it("the migration guide says so (and no longer that GET /signin without callbackUrl sets no callback-url cookie)", () => {
  const guide = readFileSync(`${repoRoot}/docs/migrating-from-authjs.md`, "utf8").replace(/\s+/g, " ")
  expect(guide).not.toContain("callback-url cookie only when a request names a `callbackUrl`")
  expect(guide).toContain("`GET /signin` without `callbackUrl` sets it to the site")
  expect(guide).toContain("Auth.js issues a random one per sign-in")
})
