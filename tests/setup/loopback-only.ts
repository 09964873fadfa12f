/**
 * Tests talk to loopback only: any `fetch` to another host fails at once, so a misconfigured provider
 * can never send traffic off this machine.
 */
const realFetch = globalThis.fetch

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || hostname.startsWith("127.")
}

globalThis.fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url)
  if (!isLoopback(url.hostname)) {
    return Promise.reject(new TypeError(`test network guard: refused a request to ${url.host}`))
  }
  return realFetch(input, init)
}
