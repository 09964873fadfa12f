/**
 * A loopback OAuth 2 provider for the tests that run one sign-in on `@auth/core` and on authchart: its
 * token endpoint answers `tokens`, its userinfo endpoint `userinfo` (both read at each request, so a test
 * may change them), anything else 404. The authorization step is the test's own (it calls the callback
 * with a code). `provider()` is the plain `type: "oauth"` config both libraries take.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** The user the provider answers by default. */
export const ADA = { id: "4242", name: "Ada", email: "ada@example.com" }

export interface LoopbackOAuth {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  tokens: Record<string, unknown>
  userinfo: Record<string, unknown>
  /** The provider config pointing at it (id `acme`), with `extra` merged over it. */
  provider<Extra extends object>(extra?: Extra): AcmeProvider & Extra
  close(): Promise<void>
}

/** The loopback provider's config as both libraries take it. */
export interface AcmeProvider {
  id: "acme"
  name: "Acme"
  type: "oauth"
  clientId: string
  clientSecret: string
  authorization: string
  token: string
  userinfo: string
}

export async function startLoopbackOAuth(
  answers: { tokens?: Record<string, unknown>; userinfo?: Record<string, unknown> } = {},
): Promise<LoopbackOAuth> {
  const state = {
    tokens: answers.tokens ?? { access_token: "at", token_type: "bearer" },
    userinfo: answers.userinfo ?? ADA,
  }
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json")
    if (req.url?.startsWith("/token")) return void res.end(JSON.stringify(state.tokens))
    if (req.url?.startsWith("/userinfo")) return void res.end(JSON.stringify(state.userinfo))
    res.statusCode = 404
    res.end("{}")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    get tokens() {
      return state.tokens
    },
    set tokens(value) {
      state.tokens = value
    },
    get userinfo() {
      return state.userinfo
    },
    set userinfo(value) {
      state.userinfo = value
    },
    provider: <Extra extends object>(extra?: Extra) => ({
      id: "acme" as const,
      name: "Acme" as const,
      type: "oauth" as const,
      clientId: "acme-client",
      clientSecret: "acme-secret",
      authorization: `${base}/authorize`,
      token: `${base}/token`,
      userinfo: `${base}/userinfo`,
      ...(extra as Extra),
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A handler of web requests: `@auth/core`'s `Auth` or authchart's, bound to a config. */
export type Handler = (request: Request) => Promise<Response>

/**
 * A whole sign-in with the loopback provider on `handle`, as a browser makes it at `origin`: CSRF, POST
 * `/auth/signin/acme`, then the callback with a code (the authorization step itself is skipped). Gives
 * the authorization URL the library redirected to, the callback's response and the cookies kept after
 * it (a cleared cookie is dropped).
 */
export async function signInAtLoopback(
  handle: Handler,
  origin: string,
): Promise<{ authorize: URL; response: Response; jar: Map<string, string> }> {
  const jar = new Map<string, string>()
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
    const response = await handle(new Request(`${origin}${path}`, { ...init, headers }))
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const at = pair.indexOf("=")
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (value === "" || /max-age=0\b/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }
  const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string }
  const started = await send("/auth/signin/acme", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken }),
  })
  const authorize = new URL(started.headers.get("location") ?? "about:blank")
  const state = authorize.searchParams.get("state")
  const response = await send(`/auth/callback/acme?${new URLSearchParams({ code: "code-1", ...(state ? { state } : {}) })}`)
  return { authorize, response, jar }
}
