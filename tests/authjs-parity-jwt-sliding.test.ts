/**
 * A JWT session's `maxAge` is an idle timeout: Auth.js re-issues the token on every `/session` read, so
 * a user who keeps using the app stays signed in. authchart re-issues less often (at most once per
 * `updateAge`), but never so rarely that the session stops sliding: with a `maxAge` at or below
 * `updateAge` (an hour's session, the default day) the token is re-issued once it is half its life old.
 * The same scenario runs through `@auth/core`'s `Auth` and authchart's: sign in, then read the session
 * every 40 seconds for two minutes with `session.maxAge` 60.
 */
import { Auth as AuthJs } from "@auth/core"
import AuthJsCredentials from "@auth/core/providers/credentials"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { Auth } from "../src/index.js"
import { ORIGIN, SECRET } from "./helpers.js"

const config = {
  secret: SECRET,
  trustHost: true,
  basePath: "/auth",
  session: { maxAge: 60 },
  providers: [AuthJsCredentials({ authorize: async () => ({ id: "u1", name: "Ann" }) })],
}
const sides: Record<string, (request: Request) => Promise<Response>> = {
  "Auth.js": (request) => AuthJs(request, config),
  authchart: (request) => Auth(request, config),
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(new Date("2026-01-01T00:00:00Z"))
})
afterEach(() => {
  vi.useRealTimers()
})

/** The `name=value` of a response's session cookie, if it set one. */
function sessionCookie(response: Response): string | undefined {
  return response.headers
    .getSetCookie()
    .find((c) => c.startsWith("authjs.session-token="))
    ?.split(";")[0]
}

describe.each(Object.keys(sides))("%s: a JWT session with maxAge 60 s, read every 40 s", (name) => {
  it("slides: still signed in after 120 s of use, each read within the last token's life", async () => {
    const auth = sides[name] ?? expect.unreachable()
    const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`), config)
    const csrfCookie = csrf.headers.getSetCookie()[0]?.split(";")[0] ?? ""
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const signIn = await auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken }),
      }),
    )
    let cookie = sessionCookie(signIn) ?? expect.unreachable()
    for (const at of [40, 80, 120]) {
      vi.setSystemTime(new Date(Date.UTC(2026, 0, 1, 0, 0, at)))
      const read = await auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }))
      expect([at, await read.json()]).toMatchObject([at, { user: { name: "Ann" } }])
      cookie = sessionCookie(read) ?? cookie
    }
  })
})
