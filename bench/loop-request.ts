/**
 * Requests for the in-process loops (bench/step-loop.ts, bench/passkey-loop.ts): the runtime's request
 * shape as an integration hands it to `handleRequest`, from 127.0.0.1:3000, and the cookie jar an answer leaves.
 */
import type { IncomingRequest, ResponseInternal } from "../src/runtime/context.js"
import { parseCookies } from "../src/runtime/cookies.js"

/** A request to `url` with `cookie`; a `body` is sent as a form. */
export function loopRequest(method: "GET" | "POST", url: URL, cookie: string, body?: Record<string, string>): IncomingRequest {
  const headers: Record<string, string> = { host: "127.0.0.1:3000", cookie }
  if (body) headers["content-type"] = "application/x-www-form-urlencoded"
  return {
    method,
    url,
    headers: { get: (name: string) => headers[name] ?? null },
    cookies: parseCookies(cookie),
    body,
    headerEntries: () => Object.entries(headers),
    clientIp: "127.0.0.1",
  }
}

/** The cookies `response` sets (not those it clears) as one Cookie header, after `extra`. */
export const cookieJar = (response: ResponseInternal, ...extra: string[]): string =>
  [...extra, ...(response.cookies ?? []).filter((c) => c.value !== "").map((c) => `${c.name}=${c.value}`)].join("; ")
