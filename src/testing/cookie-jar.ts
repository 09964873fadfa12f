/**
 * The test client's cookie jar: cookies kept per origin (scheme, host and port), as `Set-Cookie`
 * headers set them; `Max-Age=0`, an `Expires` in the past or an empty value deletes one.
 */
import { parseSetCookie } from "cookie"

/** Cookies by origin, filled from responses and rendered into `Cookie` request headers. */
export class TestCookieJar {
  readonly #byOrigin = new Map<string, Map<string, string>>()

  /** Applies every `Set-Cookie` of a response received from `url`. */
  apply(url: string | URL, response: Response, now = Date.now()): void {
    const jar = this.#jar(url)
    for (const header of response.headers.getSetCookie()) {
      const cookie = parseSetCookie(header)
      const expired = cookie.maxAge !== undefined ? cookie.maxAge <= 0 : cookie.expires !== undefined && cookie.expires.getTime() <= now
      if (expired || !cookie.value) jar.delete(cookie.name)
      else jar.set(cookie.name, cookie.value)
    }
  }

  /** The `Cookie` header for a request to `url`, or undefined when the jar has none for its origin. */
  header(url: string | URL): string | undefined {
    const jar = this.#byOrigin.get(new URL(url).origin)
    if (!jar || jar.size === 0) return undefined
    return [...jar].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("; ")
  }

  /** One cookie's value for `url`'s origin. */
  get(url: string | URL, name: string): string | undefined {
    return this.#byOrigin.get(new URL(url).origin)?.get(name)
  }

  /** Names of the cookies kept for `url`'s origin. */
  names(url: string | URL): string[] {
    return [...(this.#byOrigin.get(new URL(url).origin)?.keys() ?? [])]
  }

  /** Sets cookies for `url`'s origin from a `Cookie` header value (`a=1; b=2`), e.g. a {@link sessionCookie}. */
  set(url: string | URL, cookieHeader: string): void {
    const jar = this.#jar(url)
    for (const pair of cookieHeader.split(/;\s*/)) {
      const eq = pair.indexOf("=")
      if (eq > 0) jar.set(pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1)))
    }
  }

  /** Forgets every cookie of `url`'s origin, or of all origins. */
  clear(url?: string | URL): void {
    if (url === undefined) this.#byOrigin.clear()
    else this.#byOrigin.delete(new URL(url).origin)
  }

  #jar(url: string | URL): Map<string, string> {
    const origin = new URL(url).origin
    let jar = this.#byOrigin.get(origin)
    if (!jar) this.#byOrigin.set(origin, (jar = new Map()))
    return jar
  }
}
