/**
 * Attack class: open redirect. Every place a callback URL is read (the `callbackUrl` of a query or a
 * body, the callback-url cookie, the default `redirect` callback, the OAuth, email, credentials and
 * passkey flows, the sign-in page and a custom one, `pages.newUser`, sign-out, and the `url` answered
 * to `X-Auth-Return-Redirect`) is driven with each payload of one table of tricks browsers and URL
 * parsers disagree on. Whatever comes out is an absolute URL on the site's own origin.
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import Credentials from "../../src/providers/credentials.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import Passkey from "../../src/providers/passkey.js"
import { defaultRedirect } from "../../src/runtime/http/callback-url.js"
import { AuthClient } from "../helpers.js"
import { ORIGIN, answerUrl, beginSignIn, browser, deliver, idpAndSmtp, oidcAt } from "./support.js"

/** 40+ ways to say "somewhere else" (ORIGIN is http://app.test). */
const PAYLOADS: readonly string[] = [
  "//evil.test",
  "///evil.test",
  "////evil.test/x",
  "/\\evil.test",
  "\\\\evil.test",
  "\\/evil.test",
  "/\\/evil.test",
  "/%2F%2Fevil.test",
  "/%2f%2fevil.test",
  "%2F%2Fevil.test",
  "/%5Cevil.test",
  "/%252F%252Fevil.test",
  "%252F%252Fevil.test",
  "/\t/evil.test",
  "/\n/evil.test",
  "/\r\n/evil.test",
  "\t//evil.test",
  " //evil.test",
  "https:evil.test",
  "https:/evil.test",
  "http:\\\\evil.test",
  "https:///evil.test",
  "https://evil.test",
  "HTTPS://EVIL.TEST/",
  "https://evil.test/?u=http://app.test/",
  "javascript:alert(1)",
  "JavaScript:alert(document.domain)",
  "JAVASCRIPT:alert(1)",
  "java\tscript:alert(1)",
  "java%0ascript:alert(1)",
  "\u0001javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "ftp://evil.test/",
  "http://app.test@evil.test",
  "http://app.test:pw@evil.test/",
  "http://app.test.evil.test/",
  "http://evil.test#@app.test",
  "http://evil.test?@app.test/",
  "http://evil.test\\@app.test/",
  "http://app.test:8080/",
  "https://app.test/",
  "http://аpp.test/", // Cyrillic а
  "http://xn--pp-8cd.test/",
  "http://ａｐｐ.test.evil.test/", // full-width letters
  "//evil。test", // ideographic full stop
  "//evil%E3%80%82test",
  "http://127.0.0.1/",
  "//evil.test:443/",
  "/..//evil.test",
  "/./\\/evil.test",
  "\u2215\u2215evil.test", // division slashes
  `${"/".repeat(3)}evil.test/${"a".repeat(2000)}`,
]

/** Every fifth payload (and so every kind of trick): for the sinks that need a provider round trip each. */
const SAMPLE = PAYLOADS.filter((_, i) => i % 5 === 0)

/** The value is an absolute URL on the site (or the site itself). */
function expectOnSite(url: string | null | undefined, where: string): void {
  expect(url, where).toBeTypeOf("string")
  const value = url as string
  expect(value === ORIGIN || value.startsWith(`${ORIGIN}/`), `${where}: ${JSON.stringify(value)}`).toBe(true)
  expect(new URL(value).origin, where).toBe(ORIGIN)
}

function cookieSet(res: Response, name: string): string | undefined {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  return line === undefined ? undefined : decodeURIComponent(line.slice(name.length + 1).split(";")[0] as string)
}

/** Every callback URL a response hands to the browser: Location, JSON url, and the callback-url cookie. */
async function expectResponseOnSite(res: Response, where: string): Promise<string | undefined> {
  const location = res.headers.get("location")
  if (location !== null) expectOnSite(location, `${where} (Location)`)
  if (res.headers.get("content-type")?.includes("application/json")) {
    const body = (await res.clone().json()) as { url?: string } | null
    if (body && typeof body === "object" && "url" in body) expectOnSite(body.url, `${where} (X-Auth-Return-Redirect url)`)
  }
  const cookie = cookieSet(res, "authjs.callback-url")
  if (cookie !== undefined && cookie !== "") expectOnSite(cookie, `${where} (callback-url cookie)`)
  return location ?? cookie
}

const peers = idpAndSmtp(["idp"])

const anyone = Credentials({
  credentials: { username: {} },
  authorize: ({ username }) => ({ id: String(username), name: String(username) }),
})

function app(extra: Parameters<typeof browser>[1] = {}) {
  return browser([anyone, oidcAt(peers.idp, "idp"), Nodemailer({ server: peers.smtp.url }), Passkey()], {
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    experimental: { enableWebAuthn: true },
    ...extra,
  })
}

async function credentialsSignIn(
  client: AuthClient,
  form: Record<string, string>,
  options: { query?: string; headers?: Record<string, string> } = {},
) {
  const csrfToken = await client.csrf()
  return client.send(`/auth/callback/credentials${options.query ?? ""}`, {
    form: { csrfToken, username: "ada", ...form },
    ...(options.headers ? { headers: options.headers } : {}),
  })
}

function hiddenCallbackUrl(html: string): string | undefined {
  const match = /name="callbackUrl" value="([^"]*)"/.exec(html)
  return match?.[1]
    ?.replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&")
}

/** One place a callback URL is read: drive it with `payload`, assert on whatever comes back, return where it leads. */
type Sink = (payload: string) => Promise<string | undefined | null>

const sinks: Array<[string, Sink, (readonly string[])?]> = [
  [
    "the default redirect callback",
    async (payload) => {
      const url = defaultRedirect({ url: payload, baseUrl: ORIGIN })
      expectOnSite(url, "redirect()")
      return url
    },
  ],
  [
    "callbackUrl in the credentials callback body",
    async (payload) => {
      return expectResponseOnSite(await credentialsSignIn(app().client, { callbackUrl: payload }), "body")
    },
  ],
  [
    "callbackUrl in the credentials callback query",
    async (payload) => {
      const query = `?${new URLSearchParams({ callbackUrl: payload })}`
      return expectResponseOnSite(await credentialsSignIn(app().client, {}, { query }), "query")
    },
  ],
  [
    "the callback-url cookie",
    async (payload) => {
      const { client } = app()
      client.jar.cookies.set("authjs.callback-url", payload)
      return expectResponseOnSite(await credentialsSignIn(client, {}), "cookie")
    },
  ],
  [
    "X-Auth-Return-Redirect url",
    async (payload) => {
      const res = await credentialsSignIn(app().client, { callbackUrl: payload }, { headers: { "X-Auth-Return-Redirect": "1" } })
      expect(res.status).toBe(200)
      await expectResponseOnSite(res, "X-Auth-Return-Redirect")
      return ((await res.json()) as { url: string }).url
    },
  ],
  [
    "sign-out callbackUrl",
    async (payload) => {
      const { client } = app()
      const csrfToken = await client.csrf()
      return expectResponseOnSite(await client.send("/auth/signout", { form: { csrfToken, callbackUrl: payload } }), "signout")
    },
  ],
  [
    "the built-in sign-in page",
    async (payload) => {
      const res = await app().client.send(`/auth/signin?${new URLSearchParams({ callbackUrl: payload })}`)
      expect(res.status).toBe(200)
      const hidden = hiddenCallbackUrl(await res.text())
      expectOnSite(hidden, "hidden callbackUrl field")
      await expectResponseOnSite(res, "sign-in page")
      return hidden
    },
  ],
  [
    "a custom sign-in page (pages.signIn)",
    async (payload) => {
      const res = await app({ pages: { signIn: "/login" } }).client.send(`/auth/signin?${new URLSearchParams({ callbackUrl: payload })}`)
      await expectResponseOnSite(res, "custom sign-in")
      const inner = new URL(res.headers.get("location") as string).searchParams.get("callbackUrl")
      expectOnSite(inner, "custom sign-in callbackUrl")
      return inner
    },
  ],
  [
    "the OAuth sign-in start (the callback URL the flow keeps)",
    async (payload) => {
      const { client } = app()
      const csrfToken = await client.csrf()
      const res = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: payload } })
      expect(new URL(res.headers.get("location") as string).origin).toBe(peers.idp.issuer)
      return cookieSet(res, "authjs.callback-url") ?? (await expectResponseOnSite(res, "OAuth start"))
    },
  ],
  [
    "the OAuth flow, to its end",
    async (payload) => {
      const { client } = app()
      const authz = await beginSignIn(client, "idp", { callbackUrl: payload })
      return expectResponseOnSite(await deliver(client, answerUrl(await peers.idp.authorize(authz.href))), "OAuth callback")
    },
    SAMPLE,
  ],
  [
    "the email flow, pages.newUser, and a link edited by the attacker",
    async (payload) => {
      const { client, config } = app({ pages: { newUser: "/welcome" } })
      const before = peers.smtp.messages.length
      const csrfToken = await client.csrf()
      await client.send("/auth/signin/nodemailer", { form: { csrfToken, email: `x${before}@example.test`, callbackUrl: payload } })
      const link = new URL((await peers.smtp.waitForMessage(before + 1)).links.find((l) => l.includes("/callback/nodemailer")) as string)
      expectOnSite(link.searchParams.get("callbackUrl"), "callbackUrl in the mailed link")
      link.searchParams.set("callbackUrl", payload)
      const res = await new AuthClient(config).send(`${link.pathname}${link.search}`)
      await expectResponseOnSite(res, "magic link")
      const inner = new URL(res.headers.get("location") as string).searchParams.get("callbackUrl")
      expectOnSite(inner, "newUser callbackUrl")
      return inner
    },
    SAMPLE,
  ],
  [
    "the passkey options request",
    async (payload) => {
      const res = await app().client.send(`/auth/webauthn-options/passkey?${new URLSearchParams({ callbackUrl: payload })}`)
      expect(res.status).toBe(200)
      return expectResponseOnSite(res, "webauthn-options")
    },
  ],
]

describe.each(sinks)("open redirect through %s", (_, sink, payloads = PAYLOADS) => {
  it.each(payloads.map((p) => [p]))("open redirect: %j stays on the site", async (payload) => {
    await sink(payload)
  })

  it("baseline: a same-site path is kept", async () => {
    expect(await sink("/dashboard?tab=1")).toBe(`${ORIGIN}/dashboard?tab=1`)
  })
})

describe("open redirect: an app's own redirect callback", () => {
  const scriptish = PAYLOADS.filter((p) => /^\W*(java|vb)?\s*script|^data:|^file:|^ftp:/i.test(p.replace(/[\t\n\u0001]/g, "")))

  it.each(scriptish.map((p) => [p]))("a permissive redirect callback still never yields a non-http(s) Location for %j", async (payload) => {
    const { client } = app({ callbacks: { redirect: ({ url }) => url } })
    const res = await credentialsSignIn(client, { callbackUrl: payload })
    const location = res.headers.get("location") as string
    expect(["http:", "https:"]).toContain(new URL(location).protocol)
  })
})
