/**
 * The fuzzer's inputs (fast-check arbitraries): random and adversarial HTTP requests for the mounted
 * Express app. Methods, paths under and outside the base path (encoded, dot segments, very long),
 * query strings, bodies (urlencoded, JSON, nested, `__proto__`, huge, invalid UTF-8, mismatched
 * content types) and headers (Host, X-Forwarded-*, Cookie with session/csrf/flow/chunk cookies of random
 * and near-valid values, Authorization). Every free text may carry {@link MARK}, which must never come
 * back raw in a page.
 */
import fc from "fast-check"

/** Injected everywhere; an HTML body that contains it raw reflected input unescaped. */
export const MARK = "<x-fz>"

/** One request, as the HTTP client sends it. */
export interface FuzzRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: Buffer | undefined
}

/** Real values of the app (a session token, a csrf pair and token, flow cookies), to mutate. */
export interface NearValid {
  sessionToken: string
  csrfCookie: string
  csrfToken: string
  flowIdp: string
  callbackUrl: string
}

const TRICKS = [
  MARK,
  `"${MARK}`,
  `'>${MARK}`,
  `</script>${MARK}`,
  "javascript:alert(1)",
  "//evil.test",
  "/\\evil.test",
  "https://evil.test/",
  "__proto__",
  "constructor",
  "prototype",
  "%00",
  "%FF%FE",
  "%",
  "../../etc/passwd",
  "\u202e",
  "ada",
  "correct horse",
  "ada@example.test",
  "undefined",
  "null",
  "",
]

/** Free text: printable, any Unicode, or a known trick, sometimes with the marker. */
export const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.constantFrom(...TRICKS),
  fc.string({ maxLength: 8 }).map((s) => `${s}${MARK}`),
  fc.constant("x".repeat(5000)),
)

/** Text that can travel in a header value (latin1 printable and tab; Node refuses the rest). */
const headerSafe = (s: string): string => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?")

const ACTIONS = [
  "signin",
  "callback",
  "session",
  "csrf",
  "providers",
  "signout",
  "error",
  "verify-request",
  "webauthn-options",
  "webauthn-script",
  "nope",
  "",
]
const PROVIDERS = [
  "credentials",
  "idp",
  "nodemailer",
  "passkey",
  "undefined",
  "nope",
  "..",
  "%2e%2e",
  "%00",
  "%FF",
  "%E2%80%AE",
  "a%2Fb",
  "%0A%1B[31m",
]

const path: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...ACTIONS), fc.option(fc.constantFrom(...PROVIDERS), { nil: undefined }))
      .map(([a, p]) => `/auth/${a}${p === undefined ? "" : `/${p}`}`),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...ACTIONS), text).map(([a, t]) => `/auth/${a}/${encodeURIComponent(t)}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "/me",
      "/",
      "/other",
      "/auth",
      "/auth/",
      "/authx/providers",
      "/auth/../auth/providers",
      "/auth/./session",
      "/auth//session",
      "/auth/%2e%2e/session",
      "/AUTH/session",
      "/auth/session/",
      "/auth/signin/credentials/extra",
      "/auth/%73ession",
      `/auth/${"a".repeat(9000)}`,
    ),
  },
)

/** The routes that do something, with their method: most requests aim at one of these. */
const ROUTES: Array<[string, string]> = [
  ["POST", "/auth/callback/credentials"],
  ["POST", "/auth/signin/idp"],
  ["POST", "/auth/signin/nodemailer"],
  ["GET", "/auth/callback/idp"],
  ["POST", "/auth/callback/idp"],
  ["GET", "/auth/callback/nodemailer"],
  ["GET", "/auth/webauthn-options/passkey"],
  ["POST", "/auth/callback/passkey"],
  ["POST", "/auth/signout"],
  ["POST", "/auth/session"],
  ["GET", "/auth/session"],
  ["GET", "/auth/signin"],
  ["GET", "/auth/error"],
  ["GET", "/me"],
]

const METHODS = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("GET", "POST") },
  { weight: 1, arbitrary: fc.constantFrom("PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "PROPFIND") },
)

const route: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...ROUTES) },
  { weight: 1, arbitrary: fc.tuple(METHODS, path) },
)

const QUERY_KEYS = [
  "callbackUrl",
  "error",
  "code",
  "state",
  "iss",
  "token",
  "email",
  "csrfToken",
  "step",
  "action",
  "redirect_uri",
  "__proto__",
  "constructor",
  "a[b]",
  "prompt",
  "provider",
]

const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant("") },
  {
    weight: 6,
    arbitrary: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), text), { maxLength: 5 }).map((pairs) => `?${new URLSearchParams(pairs)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("?%", "?a=%ZZ", "?__proto__[x]=1", "?callbackUrl=%2F%2Fevil.test", "?&&&=", "?error=%3Cx-fz%3E"),
  },
)

const BODY_KEYS = [
  "csrfToken",
  "callbackUrl",
  "email",
  "username",
  "password",
  "code",
  "step",
  "action",
  "data",
  "token",
  "__proto__",
  "constructor",
  "state",
]

function mutate(value: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(value),
    fc.nat({ max: Math.max(0, value.length - 1) }).map((i) => `${value.slice(0, i)}${value[i] === "A" ? "B" : "A"}${value.slice(i + 1)}`),
    fc.nat({ max: value.length }).map((i) => value.slice(0, i)),
    text.map((t) => `${value}${t}`),
    fc.constant(value.toUpperCase()),
  )
}

/** Cookie headers: session, chunk, csrf, flow and callback-url cookies with random or near-valid values. */
function cookieHeader(real: NearValid): fc.Arbitrary<string | undefined> {
  const names = fc.constantFrom(
    "authjs.session-token",
    "authjs.session-token.0",
    "authjs.session-token.1",
    "authjs.session-token.9",
    "__Secure-authjs.session-token",
    "authjs.csrf-token",
    "__Host-authjs.csrf-token",
    "authjs.callback-url",
    "authchart.flow.idp",
    "authchart.flow.idp.0",
    "authchart.flow.credentials",
    "authchart.flow.nodemailer",
    "authchart.flow.passkey",
    "__proto__",
    "x",
  )
  const value = fc.oneof(
    text.map((t) => encodeURIComponent(t)),
    mutate(real.sessionToken),
    mutate(real.csrfCookie).map(encodeURIComponent),
    mutate(real.flowIdp),
    fc.constant(encodeURIComponent(real.callbackUrl)),
    fc.constant(real.sessionToken.slice(0, 100)),
  )
  // half the time the browser's real csrf cookie comes first, so that POSTs get past the CSRF check
  const own = `authjs.csrf-token=${encodeURIComponent(real.csrfCookie)}`
  return fc.option(
    fc
      .tuple(fc.boolean(), fc.array(fc.tuple(names, value), { maxLength: 5 }))
      .map(([withCsrf, pairs]) => [...(withCsrf ? [own] : []), ...pairs.map(([n, v]) => `${n}=${v}`)].join("; ")),
    { nil: undefined, freq: 5 },
  )
}

/** A body and the content type it is sent with (sometimes a mismatched one). */
function body(real: NearValid): fc.Arbitrary<{ type: string | undefined; bytes: Buffer | undefined }> {
  const field = fc.oneof(text, fc.constant(real.csrfToken), mutate(real.csrfToken))
  const form = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(fc.constantFrom(...BODY_KEYS), field), { maxLength: 6 }))
    .map(([withCsrf, pairs]) => (withCsrf ? [["csrfToken", real.csrfToken] as [string, string], ...pairs] : pairs))
  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom(...BODY_KEYS), fc.oneof(field, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 6 }),
    fc.constant(JSON.parse('{"__proto__":{"csrfToken":"x","isAdmin":true},"constructor":{"prototype":{"x":1}}}') as unknown),
  )
  const type = fc.constantFrom(
    "application/x-www-form-urlencoded",
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded, application/json",
    "",
  )
  // a plausible form for the routes above: the real CSRF token, a known user or address, a callback URL
  const plausible = fc
    .record({
      username: fc.oneof(fc.constant("ada"), text),
      email: fc.oneof(fc.constant("ada@example.test"), text),
      callbackUrl: text,
      extra: fc.array(fc.tuple(fc.constantFrom(...BODY_KEYS), field), { maxLength: 2 }),
    })
    .map(({ extra, ...fields }) => ({
      type: "application/x-www-form-urlencoded",
      bytes: Buffer.from(new URLSearchParams([["csrfToken", real.csrfToken], ...Object.entries(fields), ...extra]).toString()),
    }))
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ type: undefined, bytes: undefined }) },
    { weight: 8, arbitrary: plausible },
    {
      weight: 4,
      arbitrary: fc.tuple(form, type).map(([pairs, t]) => ({ type: t, bytes: Buffer.from(new URLSearchParams(pairs).toString()) })),
    },
    { weight: 3, arbitrary: fc.tuple(json, type).map(([value, t]) => ({ type: t, bytes: Buffer.from(JSON.stringify(value) ?? "null") })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            Buffer.from([0xff, 0xfe, 0x3d, 0xc3, 0x28, 0x26, 0xa0, 0xa1]),
            Buffer.from("{"),
            Buffer.from('{"a":'.repeat(2000)),
            Buffer.from(`email=${"%".repeat(3)}`),
            Buffer.alloc(1_100_000, 0x61),
          ),
          type,
        )
        .map(([bytes, t]) => ({ type: t, bytes })),
    },
  )
}

const HOSTS = ["evil.test", "x/y", "[::1]", "127.0.0.1:1", "a@b", "", `${MARK}.test`, "EVIL.test:99999", "localhost:80"]

/** The whole request. `host` is the app's own `host:port`, used most of the time. */
export function fuzzRequest(real: NearValid, host: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route,
      query,
      body: body(real),
      host: fc.oneof({ weight: 4, arbitrary: fc.constant(host) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTS) }),
      forwardedHost: fc.option(fc.oneof(fc.constantFrom(...HOSTS), text), { nil: undefined }),
      forwardedProto: fc.option(fc.constantFrom("http", "https", "javascript", "", "ftp", "https,http", "HTTPS", MARK), { nil: undefined }),
      cookie: cookieHeader(real),
      authorization: fc.option(
        fc.oneof(
          mutate(real.sessionToken).map((t) => `Bearer ${t}`),
          text,
        ),
        { nil: undefined },
      ),
      returnRedirect: fc.boolean(),
      extra: fc.option(text, { nil: undefined }),
    })
    .map((r) => {
      const headers: Record<string, string> = { host: headerSafe(r.host) }
      if (r.forwardedHost !== undefined) headers["x-forwarded-host"] = headerSafe(r.forwardedHost)
      if (r.forwardedProto !== undefined) headers["x-forwarded-proto"] = r.forwardedProto
      if (r.cookie !== undefined) headers.cookie = headerSafe(r.cookie)
      if (r.authorization !== undefined) headers.authorization = headerSafe(r.authorization)
      if (r.returnRedirect) headers["x-auth-return-redirect"] = "1"
      if (r.extra !== undefined) headers["user-agent"] = headerSafe(r.extra)
      const [method, path] = r.route
      const hasBody = r.body.bytes !== undefined && method !== "GET" && method !== "HEAD"
      if (hasBody && r.body.type !== undefined) headers["content-type"] = r.body.type
      return { method, path: `${path}${r.query}`, headers, body: hasBody ? r.body.bytes : undefined }
    })
}
