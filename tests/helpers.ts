/**
 * Test helpers: a cookie jar that carries `Set-Cookie` forward, and a client that sends web `Request`s
 * to `Auth` (no server) or real HTTP requests to a listening app.
 */
import { Auth } from "../src/index.js"
import type { AuthConfig } from "../src/index.js"

export const SECRET = "test-secret-that-is-long-enough-0123456789"
export const ORIGIN = "http://app.test"

export interface SetCookieInfo {
  name: string
  value: string
  attributes: Record<string, string | true>
}

export function parseSetCookie(header: string): SetCookieInfo {
  const [pair = "", ...attrs] = header.split(/;\s*/)
  const eq = pair.indexOf("=")
  const attributes: Record<string, string | true> = {}
  for (const attr of attrs) {
    const i = attr.indexOf("=")
    if (i === -1) attributes[attr.toLowerCase()] = true
    else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1)
  }
  return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes }
}

export function setCookies(response: Response): SetCookieInfo[] {
  return response.headers.getSetCookie().map(parseSetCookie)
}

/** A browser-ish cookie jar: applies Set-Cookie (Max-Age=0 deletes), renders a Cookie header. */
export class CookieJar {
  readonly cookies = new Map<string, string>()
  apply(response: Response): void {
    for (const c of setCookies(response)) {
      if (c.attributes["max-age"] === "0" || c.value === "") this.cookies.delete(c.name)
      else this.cookies.set(c.name, c.value)
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ")
  }
  get(name: string): string | undefined {
    return this.cookies.get(name)
  }
}

export interface SendOptions {
  method?: string
  form?: Record<string, string>
  json?: unknown
  headers?: Record<string, string>
  body?: string
  /** The client IP `Auth` is told about (rate limits). */
  clientIp?: string
}

/** Sends requests to `Auth(config)` in-process, carrying cookies like a browser. */
export class AuthClient {
  readonly jar = new CookieJar()
  constructor(
    readonly config: AuthConfig,
    readonly origin = ORIGIN,
  ) {}

  async send(path: string, options: SendOptions = {}): Promise<Response> {
    const headers = new Headers(options.headers)
    const cookie = this.jar.header()
    if (cookie) headers.set("cookie", cookie)
    let body: string | undefined = options.body
    if (options.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(options.form).toString()
    } else if (options.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(options.json)
    }
    const method = options.method ?? (body !== undefined ? "POST" : "GET")
    const request = new Request(`${this.origin}${path}`, { method, headers, body })
    const response = await Auth(request, this.config, options.clientIp ? { clientIp: options.clientIp } : {})
    this.jar.apply(response)
    return response
  }

  async csrf(): Promise<string> {
    const response = await this.send("/auth/csrf")
    const { csrfToken } = (await response.json()) as { csrfToken: string }
    return csrfToken
  }
}

/** Captures log output of one config. */
export function captureLogger() {
  const errors: Error[] = []
  const warnings: string[] = []
  return {
    errors,
    warnings,
    logger: {
      error: (e: Error) => void errors.push(e),
      warn: (code: string) => void warnings.push(code),
      debug: () => {},
    },
  }
}

/**
 * A compact JWE with one character in the middle of its ciphertext changed to a different one: always a
 * real change of the decoded bytes (editing the last character may only touch base64url's unused bits).
 */
export function tamperJwe(token: string): string {
  const parts = token.split(".")
  const segment = parts[3] ?? ""
  const at = Math.floor(segment.length / 2)
  const swapped = segment[at] === "A" ? "B" : "A"
  parts[3] = `${segment.slice(0, at)}${swapped}${segment.slice(at + 1)}`
  return parts.join(".")
}
