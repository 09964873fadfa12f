/**
 * `authchart/jwt`: encode, decode and read the session token, wire-compatible with `@auth/core/jwt`.
 *
 * A session token is a compact JWE (RFC 7516) with `alg: "dir"` and `enc: "A256CBC-HS512"`, keyed by
 * HKDF from your secret and the cookie name. Tokens Auth.js v5 wrote decode here, and the other way
 * round.
 *
 * @example
 * ```ts
 * import { encode, decode, getToken } from "authchart/jwt"
 *
 * const salt = "authjs.session-token"
 * const token = await encode({ token: { sub: "user-1" }, secret: process.env.AUTH_SECRET!, salt })
 * const claims = await decode({ token, secret: process.env.AUTH_SECRET!, salt })
 * ```
 *
 * @module
 */
import { MissingSecret } from "./errors.js"
import { parseCookies, readChunked } from "./runtime/http/cookies.js"
import { secretsFromEnv } from "./runtime/config/env.js"
import { isPlainObject } from "./runtime/config/plain-object.js"
import { decryptJwt, encryptJwt } from "./runtime/crypto/sealed.js"
import type { Awaitable, JWT, JWTDecodeParams, JWTEncodeParams } from "./types.js"

export type { JWT, JWTDecodeParams, JWTEncodeParams } from "./types.js"

const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60

function secretList(secret: string | readonly string[]): readonly string[] {
  return typeof secret === "string" ? [secret] : secret
}

/**
 * Encrypts `token` into a session JWT with the first (newest) secret. `iat`, `exp` (now + `maxAge`,
 * default 30 days) and a random `jti` are always set anew, overwriting any in `token`.
 *
 * @example
 * ```ts
 * const jwt = await encode({
 *   token: { sub: "user-1", name: "Ada" },
 *   secret: [process.env.AUTH_SECRET_1!, process.env.AUTH_SECRET!], // the first one encrypts
 *   salt: "authjs.session-token", // the session cookie name
 *   maxAge: 60 * 60,
 * })
 * ```
 */
export async function encode<Payload = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {}, secret, salt, maxAge = DEFAULT_MAX_AGE } = params
  if (!isPlainObject(token)) throw new TypeError("JWT Claims Set MUST be an object")
  const [encryptionSecret] = secretList(secret)
  if (!encryptionSecret) throw new MissingSecret("encode needs a secret")
  const nowMs = Date.now()
  const exp = ((nowMs / 1000) | 0) + maxAge
  if (!Number.isFinite(exp)) throw new TypeError("maxAge must be a finite number of seconds")
  const claims = { ...token, iat: Math.floor(nowMs / 1000), exp, jti: crypto.randomUUID() }
  return encryptJwt(claims, encryptionSecret, salt)
}

/**
 * Decrypts and checks a session JWT. Returns `null` for an empty or missing token and throws for any
 * other failure (bad encoding, no matching secret, wrong tag, `exp` more than 15 s past), like Auth.js.
 *
 * With a `kid` in the header the secret with that key thumbprint decrypts; without one, every secret
 * is tried in order (Auth.js tried only the first). Put the newest secret first when rotating.
 *
 * @example
 * ```ts
 * try {
 *   const claims = await decode({ token, secret: [newSecret, oldSecret], salt: "authjs.session-token" })
 *   if (claims) console.log(claims.sub)
 * } catch {
 *   // tampered, expired, or encrypted with a secret you no longer have
 * }
 * ```
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params
  if (!token) return null
  return (await decryptJwt(token, secretList(secret), salt)) as Payload
}

/** Headers as a web `Request` has them, or as Node's `IncomingMessage` does. */
export type HeadersInput = Headers | Record<string, string | string[] | undefined>

/** What {@link getToken} reads. */
export interface GetTokenParams<R extends boolean = false> {
  /** A web `Request`, or anything with `headers` (an Express/Node request). `url` picks the cookie name. */
  req: Request | { headers: HeadersInput; url?: string }
  /** One secret or several, newest first. Default: `AUTH_SECRET_3`, `_2`, `_1`, `AUTH_SECRET`. */
  secret?: string | readonly string[]
  /**
   * Read the `__Secure-` cookie. Default: true when `req.url` or `AUTH_URL` is `https:`.
   * (Auth.js v5 defaulted to false.)
   */
  secureCookie?: boolean
  /** The session cookie name. Default `__Secure-authjs.session-token` or `authjs.session-token`. */
  cookieName?: string
  /** Key derivation salt. Default: the cookie name. */
  salt?: string
  /** Return the token string without decoding it. */
  raw?: R
  /** A replacement for {@link decode}, e.g. the one from your `jwt` config. */
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>
}

function headerValue(headers: HeadersInput, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name)
  const values: string[] = []
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue
    values.push(...(Array.isArray(value) ? value : [value]))
  }
  return values.length ? values.join(name === "cookie" ? "; " : ", ") : null
}

function isHttps(url: string | undefined): boolean {
  if (!url) return false
  try {
    return new URL(url).protocol === "https:"
  } catch {
    return false
  }
}

/**
 * Reads the session token of a request, from its (possibly chunked) session cookie or else from an
 * `Authorization: Bearer <token>` header, and decodes it. Returns `null` when there is no token or it
 * does not decode; with `raw: true`, returns the token string as sent. Throws `MissingSecret` when a
 * token needs decoding and no secret is given or set in the environment.
 *
 * Chunks are read by their exact names (`name`, `name.0`, `name.1`, …), so a cookie that merely starts
 * with the session cookie name is ignored.
 *
 * @example
 * ```ts
 * // Express route, AUTH_SECRET in the environment
 * app.get("/api/me", async (req, res) => {
 *   const token = await getToken({ req })
 *   if (!token) return res.status(401).end()
 *   res.json({ sub: token.sub })
 * })
 *
 * // Web Request behind HTTPS: picks `__Secure-authjs.session-token` from the URL
 * const raw = await getToken({ req: request, raw: true })
 * ```
 */
export async function getToken<R extends boolean = false>(params: GetTokenParams<R>): Promise<R extends true ? string | null : JWT | null>
export async function getToken(params: GetTokenParams<boolean>): Promise<string | JWT | null> {
  const { req, raw } = params
  if (!req) throw new TypeError("Must pass `req` to JWT getToken()")
  const secureCookie = params.secureCookie ?? (isHttps(req.url) || (process.env.AUTH_URL?.startsWith("https:") ?? false))
  const cookieName = params.cookieName ?? (secureCookie ? "__Secure-authjs.session-token" : "authjs.session-token")
  const salt = params.salt ?? cookieName

  let token = readChunked(parseCookies(headerValue(req.headers, "cookie")), cookieName)
  const authorization = headerValue(req.headers, "authorization")
  if (!token && authorization?.startsWith("Bearer ")) {
    try {
      token = decodeURIComponent(authorization.split(" ")[1] ?? "")
    } catch {
      return null
    }
  }
  if (!token) return null
  if (raw) return token

  const secret = params.secret?.length ? params.secret : secretsFromEnv(process.env)
  if (!secret.length) throw new MissingSecret("Must pass `secret` if not set to JWT getToken()")
  try {
    return await (params.decode ?? decode)({ token, secret, salt })
  } catch {
    return null
  }
}
