/**
 * Tests talk to loopback only: any `fetch` to another host fails at once, so a misconfigured provider
 * can never send traffic off this machine. Installed once per worker: files sharing a worker's module
 * graph run this file again, and the guard must not wrap itself.
 */
const GUARD = Symbol.for("authchart.tests.loopback-fetch")

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || hostname.startsWith("127.")
}

if (!(GUARD in globalThis.fetch)) {
  const realFetch = globalThis.fetch
  const guarded = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url)
    if (!isLoopback(url.hostname)) {
      return Promise.reject(new TypeError(`test network guard: refused a request to ${url.host}`))
    }
    return realFetch(input, init)
  }
  globalThis.fetch = Object.assign(guarded, { [GUARD]: true })
}
