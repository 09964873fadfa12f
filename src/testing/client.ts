/**
 * `createTestClient(app | baseUrl)`: an HTTP client with a cookie jar that walks an app's sign-in
 * flows the way a browser does (CSRF token, form posts, redirects, the test IdP's login page, the
 * email link), so a test can sign in and then call the app's protected routes.
 */
import { createServer } from "node:http"
import type { RequestListener, Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Session } from "../types.js"
import { TestCookieJar } from "./cookie-jar.js"
import { type PageForm, postFormIn } from "./html-form.js"
import type { TestMailbox } from "./mailbox.js"

/** Options of {@link createTestClient}. */
export interface TestClientOptions {
  /** Where the auth routes are mounted. Default `/auth`. */
  basePath?: string
  /** Bound of each request. Default 10 s. */
  timeoutMs?: number
}

/** How a sign-in ended. */
export interface SignInResult {
  /** True when the flow redirected out of the auth routes (to the `callbackUrl`) without an error: signed in. */
  ok: boolean
  /** Where the flow sent the browser last (the `callbackUrl`, or the sign-in or error page). */
  url: string
  /** The `error` of that URL (`CredentialsSignin`, `Configuration`, …), or null. */
  error: string | null
  /** Its `code` (e.g. `credentials`), or null. */
  code: string | null
  /** The last response of the flow (a step page when the flow waits for more input). */
  response: Response
}

/** Sign-in options shared by every method. */
export interface SignInOptions {
  /** The provider id. Default: `credentials`, `nodemailer` (email) or `test-idp` (OAuth). */
  provider?: string
  /** Where to land after sign-in. Default: the app's root. */
  callbackUrl?: string
}

/** A browser-like client of one app. */
export interface TestClient {
  /** `http://127.0.0.1:<port>` (or the URL given). */
  readonly baseUrl: string
  readonly jar: TestCookieJar
  /** One request (relative to `baseUrl` or absolute) with the jar's cookies; redirects are not followed. */
  fetch(path: string | URL, init?: RequestInit & { form?: Record<string, string> }): Promise<Response>
  /** A CSRF token from `<basePath>/csrf` (its cookie lands in the jar). */
  csrfToken(): Promise<string>
  readonly signIn: {
    /** Posts the fields to the credentials callback, as the sign-in page does. */
    credentials(fields: Record<string, string>, options?: SignInOptions): Promise<SignInResult>
    /** Asks for a link, reads it from the mailbox the app sends to, and opens it. */
    email(address: string, options: SignInOptions & { mailbox: TestMailbox }): Promise<SignInResult>
    /** Starts the OAuth/OIDC flow and signs in at the test IdP as `account` (a `sub` or email; default the first). */
    oauth(options?: SignInOptions & { account?: string; deny?: boolean }): Promise<SignInResult>
  }
  /**
   * Submits the form of the page a sign-in stopped at (a step such as TOTP: `ok` false, `error` null),
   * with its hidden fields (`step`, `csrfToken`) and `fields`, and goes on with the flow.
   */
  submit(stoppedAt: SignInResult, fields: Record<string, string>): Promise<SignInResult>
  /** Signs out (POST `<basePath>/signout` with a CSRF token). */
  signOut(): Promise<void>
  /** Stops the server started for an app (nothing for a URL). */
  close(): Promise<void>
}

/**
 * A client for an app (an Express app or any Node request listener, served on a loopback port for the
 * client's lifetime) or for a running server's base URL.
 *
 * @example
 * ```ts
 * import { createTestClient, getSessionFrom } from "authchart/testing"
 * const client = await createTestClient(app)
 * const result = await client.signIn.credentials({ email: "ada@example.test", password: "pw" })
 * expect(result.ok).toBe(true)
 * expect((await getSessionFrom(client))?.user?.email).toBe("ada@example.test")
 * await client.close()
 * ```
 */
export async function createTestClient(app: RequestListener | string | URL, options: TestClientOptions = {}): Promise<TestClient> {
  let server: Server | undefined
  let baseUrl: string
  if (typeof app === "function") {
    server = createServer(app)
    const listening = server
    await new Promise<void>((resolve, reject) => {
      listening.once("error", reject)
      listening.listen(0, "127.0.0.1", () => resolve())
    })
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
  } else {
    baseUrl = new URL(app).origin
  }
  const basePath = (options.basePath ?? "/auth").replace(/\/+$/, "")
  const timeoutMs = options.timeoutMs ?? 10_000
  const jar = new TestCookieJar()
  const authPath = (path: string) => new URL(`${basePath}${path}`, baseUrl)

  async function send(path: string | URL, init: RequestInit & { form?: Record<string, string> } = {}): Promise<Response> {
    const url = new URL(path, baseUrl)
    const { form, ...rest } = init
    const headers = new Headers(rest.headers)
    const cookie = jar.header(url)
    if (cookie) headers.set("cookie", cookie)
    let body = rest.body
    if (form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(form).toString()
    }
    const method = rest.method ?? (body === undefined || body === null ? "GET" : "POST")
    const response = await fetch(url, { ...rest, method, headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) })
    jar.apply(url, response)
    return response
  }

  async function csrfToken(): Promise<string> {
    const response = await send(authPath("/csrf"))
    const body = (await response.json()) as { csrfToken?: unknown }
    if (typeof body.csrfToken !== "string") throw new Error(`No CSRF token at ${authPath("/csrf").href} (status ${response.status})`)
    return body.csrfToken
  }

  /** Follows redirects inside the auth routes and through other origins (the IdP) until the flow ends. */
  async function finish(first: Response, firstUrl: URL, account?: string, deny?: boolean): Promise<SignInResult> {
    let response = first
    let url = firstUrl
    for (let hop = 0; hop < 20; hop++) {
      const location = response.headers.get("location")
      if (location !== null && response.status >= 300 && response.status < 400) {
        url = new URL(location, url)
        // the flow goes on at another origin (the IdP) and at the app's callback; anywhere else it ended
        const onApp = url.origin === new URL(baseUrl).origin
        if (onApp && !url.pathname.startsWith(`${basePath}/callback/`)) return ended(response, url, basePath)
        response = await send(url)
        continue
      }
      const login = response.ok ? await idpLoginForm(response.clone()) : null
      if (!login) return ended(response, url, basePath)
      const form = { ...login.hidden, ...chosen(login, account, deny) }
      url = new URL(login.action, url)
      response = await send(url, { method: "POST", form })
    }
    throw new Error(`Sign-in did not end after 20 redirects (last: ${url.href})`)
  }

  const withDefaults = (options: SignInOptions | undefined) => ({
    callbackUrl: options?.callbackUrl ?? `${baseUrl}/`,
  })

  const client: TestClient = {
    baseUrl,
    jar,
    fetch: send,
    csrfToken,
    signIn: {
      async credentials(fields, options) {
        const url = authPath(`/callback/${encodeURIComponent(options?.provider ?? "credentials")}`)
        const form = { ...fields, ...withDefaults(options), csrfToken: await csrfToken() }
        return finish(await send(url, { method: "POST", form }), url)
      },
      async email(address, options) {
        const url = authPath(`/signin/${encodeURIComponent(options.provider ?? "nodemailer")}`)
        const since = options.mailbox.messages.length
        const form = { email: address, ...withDefaults(options), csrfToken: await csrfToken() }
        const requested = await send(url, { method: "POST", form })
        const next = new URL(requested.headers.get("location") ?? url.href, url)
        if (next.searchParams.get("error") !== null || !next.pathname.endsWith("/verify-request")) return ended(requested, next, basePath)
        const link = new URL(await options.mailbox.linkFor(address, { since }))
        return finish(await send(link), link)
      },
      async oauth(options) {
        const url = authPath(`/signin/${encodeURIComponent(options?.provider ?? "test-idp")}`)
        const form = { ...withDefaults(options), csrfToken: await csrfToken() }
        return finish(await send(url, { method: "POST", form }), url, options?.account, options?.deny)
      },
    },
    async submit(stoppedAt, fields) {
      const form = postFormIn(await stoppedAt.response.clone().text())
      if (!form) throw new Error(`The page at ${stoppedAt.url} has no form to submit (status ${stoppedAt.response.status})`)
      const url = new URL(form.action, stoppedAt.url)
      return finish(await send(url, { method: "POST", form: { ...form.hidden, ...fields } }), url)
    },
    async signOut() {
      await send(authPath("/signout"), { method: "POST", form: { csrfToken: await csrfToken() } })
    },
    close: () =>
      new Promise((resolve, reject) => {
        if (!server) return resolve()
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
  return client
}

/**
 * The session the app sees for the client's cookies (`GET <basePath>/session`), or null.
 *
 * @example
 * ```ts
 * const session = await getSessionFrom(client)
 * session?.user?.email // "ada@example.test"
 * ```
 */
export async function getSessionFrom(client: TestClient, options: { basePath?: string } = {}): Promise<Session | null> {
  const basePath = (options.basePath ?? "/auth").replace(/\/+$/, "")
  const response = await client.fetch(`${basePath}/session`)
  if (!response.ok) throw new Error(`GET ${basePath}/session answered ${response.status}`)
  const body = (await response.json()) as Session | null
  return body && typeof body === "object" && Object.keys(body).length > 0 ? body : null
}

function ended(response: Response, url: URL, basePath: string): SignInResult {
  const error = url.searchParams.get("error")
  const code = url.searchParams.get("code")
  const redirected = response.status >= 300 && response.status < 400
  const toAuthPage = url.pathname.startsWith(`${basePath}/`)
  return { ok: redirected && error === null && !toAuthPage, url: url.href, error, code, response }
}

/** The test IdP's login page (a form with a hidden `interaction` and a button per account), or null. */
async function idpLoginForm(response: Response): Promise<PageForm | null> {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/html")) return null
  const form = postFormIn(await response.text())
  return form && "interaction" in form.hidden ? form : null
}

function chosen(form: PageForm, account: string | undefined, deny: boolean | undefined): Record<string, string> {
  if (deny) return { deny: "1" }
  const accounts = form.buttons.filter((b) => b.name === "account")
  const match = account === undefined ? accounts[0] : accounts.find((a) => a.value === account || a.label.includes(`(${account})`))
  if (!match) throw new Error(`The test IdP has no account "${account ?? ""}" (it has: ${accounts.map((a) => a.value).join(", ")})`)
  return { account: match.value }
}
