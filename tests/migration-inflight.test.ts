/**
 * Sign-ins in flight across the switch between `@auth/core` and authchart (one app, the same config and
 * secret, a loopback OAuth provider): started on one library, finished on the other.
 * - Started on Auth.js, finished on authchart: the callback carries Auth.js' `pkce`/`state` cookies and no
 *   authchart flow state, and ends on the sign-in page asking to start again (`FlowStartedElsewhere`).
 * - Started on authchart, finished on Auth.js (moving back): Auth.js finds none of its cookies and sends
 *   the person to its error page with `error=Configuration` ("Server error"), Auth.js' own answer; the
 *   sign-in link there starts again. Asserted so docs/migrating-from-authjs.md stays true.
 */
import { Auth as AuthJs } from "@auth/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "../src/index.js"
import { ORIGIN, SECRET } from "./helpers.js"
import { type LoopbackOAuth, startLoopbackOAuth } from "./support/loopback-oauth.js"

let idp: LoopbackOAuth
beforeAll(async () => {
  idp = await startLoopbackOAuth()
})
afterAll(() => idp.close())

const configOf = () => ({
  secret: SECRET,
  trustHost: true,
  basePath: "/auth",
  providers: [idp.provider({ checks: ["pkce" as const, "state" as const] })],
})
type Handler = (request: Request) => Promise<Response>
const authjs = (): Handler => {
  const config = configOf()
  return (request) => AuthJs(request, config as unknown as Parameters<typeof AuthJs>[1])
}
const authchart = (): Handler => {
  const config = configOf()
  return (request) => Auth(request, config as AuthConfig)
}

/** A browser's cookie jar across both libraries (the same origin, so the same cookies). */
function browser() {
  const jar = new Map<string, string>()
  return {
    jar,
    async send(handle: Handler, path: string, init: RequestInit = {}): Promise<Response> {
      const headers = new Headers(init.headers)
      headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
      const response = await handle(new Request(new URL(path, ORIGIN), { ...init, headers }))
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";")
        const at = pair.indexOf("=")
        const value = pair.slice(at + 1)
        if (value === "" || /max-age=0\b/i.test(line)) jar.delete(pair.slice(0, at))
        else jar.set(pair.slice(0, at), value)
      }
      return response
    },
  }
}

/** Starts an OAuth sign-in on `handle`; the provider's redirect back (code and state) to follow. */
async function start(b: ReturnType<typeof browser>, handle: Handler): Promise<string> {
  const { csrfToken } = (await (await b.send(handle, "/auth/csrf")).json()) as { csrfToken: string }
  const started = await b.send(handle, "/auth/signin/acme", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken }),
  })
  const authorize = new URL(started.headers.get("location") ?? expect.unreachable())
  expect(authorize.origin).toBe(idp.base)
  return `/auth/callback/acme?${new URLSearchParams({ code: "code-1", state: authorize.searchParams.get("state") ?? "" })}`
}

describe("a sign-in in flight across the switch", () => {
  it("started on Auth.js, finished on authchart: the sign-in page asks to start again", async () => {
    const b = browser()
    const callback = await start(b, authjs())
    expect([...b.jar.keys()]).toEqual(expect.arrayContaining(["authjs.pkce.code_verifier", "authjs.state"]))
    const finished = await b.send(authchart(), callback)
    expect(finished.status).toBe(302)
    expect(finished.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStartedElsewhere`)
    const page = await (await b.send(authchart(), finished.headers.get("location") ?? "")).text()
    expect(page).toContain("This sign-in was started before the site was updated and cannot be finished. Please start again.")
    // starting again on authchart signs in
    const again = await b.send(authchart(), await start(b, authchart()))
    expect(again.headers.get("location")).toBe(ORIGIN)
    expect(b.jar.get("authjs.session-token")).toBeTruthy()
  })

  it("a callback with neither library's state is still FlowStateError (expired or used)", async () => {
    const b = browser()
    const finished = await b.send(authchart(), "/auth/callback/acme?code=c&state=s")
    expect(finished.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("started on authchart, finished on Auth.js (moving back): Auth.js' error page, error=Configuration", async () => {
    const b = browser()
    const callback = await start(b, authchart())
    const finished = await b.send(authjs(), callback)
    expect(finished.status).toBe(302)
    expect(finished.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    const page = await (await b.send(authjs(), finished.headers.get("location") ?? "")).text()
    expect(page).toContain("There is a problem with the server configuration.")
  })
})
