import { parseCookie, stringifySetCookie } from "cookie"
import type { CookieKey, CookieOption, CookiesOptions } from "../../types.js"
import { extended } from "../config/plain-object.js"
import type { OutCookie, CookieJar } from "../../types/cookies.js"
export type { OutCookie, CookieJar }

const EMPTY_JAR: CookieJar = Object.freeze({})

/** Parses a `Cookie` header. Values with `%` escapes are URI-decoded (a bad escape keeps the raw value). */
export function parseCookies(header: string | null | undefined): CookieJar {
  if (!header) return EMPTY_JAR
  return parseCookie(header)
}

/** Characters `encodeURIComponent` leaves as they are; every one is a valid cookie-octet (RFC 6265 §4.1.1). */
const PLAIN_VALUE = /^[A-Za-z0-9\-_.!~*'()]*$/
/** A cookie-name token (RFC 6265 §4.1.1, as the `cookie` package checks it). */
const NAME = /^[\u0021-\u003A\u003C\u003E-\u007E]+$/
const PATH = /^[\u0020-\u003A\u003D-\u007E]*$/
const checkedNames = new Set<string>()
const expiresText = { at: Number.NaN, text: "" }

/** `Expires` text of a date; the last one is kept (a burst of sign-ins shares one second). */
function utc(date: Date): string {
  const at = date.getTime()
  if (at !== expiresText.at) {
    expiresText.at = at
    expiresText.text = date.toUTCString()
  }
  return expiresText.text
}

/**
 * The `cookie` package's output, built directly for the common case: a known-good name and the options
 * authchart uses (the value URI-encoded as the package does). Anything else returns undefined.
 */
function plainSetCookie(cookie: OutCookie): string | undefined {
  const { name, value, options } = cookie
  if (!checkedNames.has(name)) {
    if (!NAME.test(name) || checkedNames.size >= 1024) return undefined
    checkedNames.add(name)
  }
  const { maxAge, domain, path, expires, httpOnly, secure, partitioned, priority, sameSite } = options
  if (domain || priority || (maxAge !== undefined && !Number.isInteger(maxAge))) return undefined
  if (path && !PATH.test(path)) return undefined
  // encodeURIComponent's output is always cookie-octets; a value that needs none is kept as it is
  let out = `${name}=${PLAIN_VALUE.test(value) ? value : encodeURIComponent(value)}`
  if (maxAge !== undefined) out += `; Max-Age=${maxAge}`
  if (path) out += `; Path=${path}`
  if (expires) {
    if (!(expires instanceof Date) || !Number.isFinite(expires.getTime())) return undefined
    out += `; Expires=${utc(expires)}`
  }
  if (httpOnly) out += "; HttpOnly"
  if (secure) out += "; Secure"
  if (partitioned) out += "; Partitioned"
  if (sameSite === "lax") out += "; SameSite=Lax"
  else if (sameSite === "strict" || sameSite === true) out += "; SameSite=Strict"
  else if (sameSite === "none") out += "; SameSite=None"
  else if (sameSite) return undefined
  return out
}

/** Serialises one `Set-Cookie` value; the value is URI-encoded, attributes in Auth.js order. */
export function serializeCookie(cookie: OutCookie): string {
  return plainSetCookie(cookie) ?? stringifySetCookie(cookie.name, cookie.value, cookie.options)
}

/**
 * The default cookie names and options (Auth.js v5): `__Secure-` prefix on HTTPS, `__Host-` for the CSRF
 * cookie and authchart's flow cookie; all `HttpOnly`, `SameSite=Lax`, `Path=/`.
 */
export function defaultCookies(secure: boolean): CookiesOptions {
  const prefix = secure ? "__Secure-" : ""
  const base = { httpOnly: true, sameSite: "lax", path: "/", secure } as const
  return {
    sessionToken: { name: `${prefix}authjs.session-token`, options: { ...base } },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options: { ...base } },
    csrfToken: { name: `${secure ? "__Host-" : ""}authjs.csrf-token`, options: { ...base } },
    pkceCodeVerifier: { name: `${prefix}authjs.pkce.code_verifier`, options: { ...base, maxAge: 900 } },
    state: { name: `${prefix}authjs.state`, options: { ...base, maxAge: 900 } },
    nonce: { name: `${prefix}authjs.nonce`, options: { ...base } },
    webauthnChallenge: { name: `${prefix}authjs.challenge`, options: { ...base, maxAge: 900 } },
    // `__Host-` like the CSRF cookie: a sibling subdomain cannot toss its own flow state into a browser.
    flow: { name: `${secure ? "__Host-" : ""}authchart.flow`, options: { ...base } },
  }
}

/** Deep-merges user overrides (name and options) over the defaults, like Auth.js' `cookies` option. */
export function mergeCookies(
  defaults: CookiesOptions,
  overrides: Partial<Record<CookieKey, Partial<CookieOption>>> | undefined,
): CookiesOptions {
  if (!overrides) return defaults
  const merged = { ...defaults }
  for (const key of Object.keys(overrides) as CookieKey[]) {
    const over = overrides[key]
    if (!over) continue
    merged[key] = {
      name: over.name ?? defaults[key].name,
      options: { ...defaults[key].options, ...(over.options ?? {}) },
    }
  }
  return merged
}

/** A clear of `name`: empty value, same options, `Max-Age=0`. */
export function clearCookie(name: string, options: CookieOption["options"]): OutCookie {
  // options without an expiry (the defaults) are copied, not taken apart by a rest pattern (every
  // resumed flow clears its cookie).
  // `extended`, not a spread followed by maxAge: that made each cleared cookie a hidden class of its own.
  if (options.expires === undefined) return { name, value: "", options: extended(options, { maxAge: 0 }) }
  const { expires: _expires, ...rest } = options
  return { name, value: "", options: extended(rest, { maxAge: 0 }) }
}

/** `ALLOWED_COOKIE_SIZE` 4096 less the estimated size of an empty cookie's attributes (Auth.js). */
export const CHUNK_SIZE = 4096 - 160

const CHUNK_SUFFIX = /^\.(0|[1-9]\d{0,2})$/

/**
 * The names under which `name` is present in the jar: the name itself and/or its exact chunk names
 * `name.0`, `name.1`, … Other cookies that merely start with `name` are ignored.
 */
export function chunkNamesIn(jar: CookieJar, name: string): string[] {
  const names: string[] = []
  for (const key in jar) {
    if (key === name || (key.startsWith(name) && CHUNK_SUFFIX.test(key.slice(name.length)))) {
      if (jar[key]) names.push(key)
    }
  }
  return names
}

/**
 * Reads a possibly chunked cookie value: `name` alone, or `name.0`, `name.1`, … concatenated in order.
 * Chunks win over an unchunked value when both are present. Returns `undefined` when absent.
 */
export function readChunked(jar: CookieJar, name: string): string | undefined {
  const first = jar[`${name}.0`]
  if (first === undefined) return jar[name] || undefined
  let value = first
  for (let i = 1; ; i++) {
    const part = jar[`${name}.${i}`]
    if (!part) break
    value += part
  }
  return value
}

/**
 * The cookies that store `value` under `name`, chunked when longer than {@link CHUNK_SIZE}, plus clears
 * of every stale chunk the request carried (so an unchunked↔chunked switch leaves nothing behind).
 */
export function writeChunked(jar: CookieJar, name: string, value: string, options: CookieOption["options"]): OutCookie[] {
  const seenNames = chunkNamesIn(jar, name)
  // the usual case: one cookie, and nothing of it in the request but (maybe) the same name
  if (value.length <= CHUNK_SIZE && seenNames.every((seen) => seen === name)) return [{ name, value, options }]
  const out = new Map<string, OutCookie>()
  for (const seen of seenNames) out.set(seen, clearCookie(seen, options))
  if (value.length <= CHUNK_SIZE) {
    out.set(name, { name, value, options })
  } else {
    for (let i = 0, at = 0; at < value.length; i++, at += CHUNK_SIZE) {
      const chunkName = `${name}.${i}`
      out.set(chunkName, { name: chunkName, value: value.slice(at, at + CHUNK_SIZE), options })
    }
  }
  return [...out.values()]
}

/** Clears every part of a possibly chunked cookie that the request carried. */
export function clearChunked(jar: CookieJar, name: string, options: CookieOption["options"]): OutCookie[] {
  return chunkNamesIn(jar, name).map((seen) => clearCookie(seen, options))
}
