/**
 * The HTTP client for a provider's token and userinfo endpoints: oauth4webapi's `customFetch` on
 * oauth-wire.ts (HTTP/1.1 on kept-alive `node:net` / `node:tls` connections). The global `fetch`
 * (undici) costs several times the CPU per request for the same exchange (its web streams,
 * `AbortSignal` and per-request objects), node:http's client still about four times; a sign-in makes
 * one or two such requests, so they are a large part of a callback's CPU.
 *
 * Every request has one deadline from the first byte sent to the last byte read (the provider's
 * `timeout`), a bounded answer (`MAX_BODY_BYTES`, compressed or not), no redirects followed (the answer
 * is returned as it is, like `redirect: "manual"`), and `https:` with Node's TLS verification, which
 * nothing here turns off. Idle connections close a second before the server's announced `Keep-Alive`
 * timeout and after four seconds at most.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib"
import { answerResponse } from "./oauth-response.js"
import { MAX_BODY_BYTES, ProviderHttpError, type WireAnswer, wireRequest } from "./oauth-wire.js"

export { MAX_BODY_BYTES, ProviderHttpError } from "./oauth-wire.js"

/** What oauth4webapi hands a custom fetch (its `CustomFetchOptions`, every method and body type). */
export interface ProviderRequest {
  method: string
  headers: Record<string, string>
  body?: URLSearchParams | string | null
  redirect?: RequestRedirect
  signal?: AbortSignal
}

/** Statuses whose response has no body (a web `Response` refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304])

function decoded(body: Buffer, encoding: string | undefined): Buffer {
  const limit = { maxOutputLength: MAX_BODY_BYTES }
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return body
    case "gzip":
    case "x-gzip":
      return gunzipSync(body, limit)
    case "deflate":
      return inflateSync(body, limit)
    case "br":
      return brotliDecompressSync(body, limit)
    default:
      throw new ProviderHttpError(`The provider answered with an unknown content-encoding "${encoding}".`, "EBADENCODING")
  }
}

/**
 * A provider's answer as read off the wire: status, the raw header lines, and the body decoded
 * (`content-encoding` undone) as UTF-8 text; null for a status that has no body.
 */
export interface ProviderAnswer {
  readonly status: number
  readonly statusText: string
  /** Name, value, name, value, … as received (`IncomingMessage.rawHeaders`). */
  readonly rawHeaders: readonly string[]
  readonly text: string | null
}

/**
 * A provider's answer as read off the wire, its body decoded (`content-encoding` undone) as text.
 * @example const answer = providerAnswer(await wireRequest(url, request))
 */
export function providerAnswer(wire: WireAnswer): ProviderAnswer {
  const { status } = wire
  return {
    status,
    statusText: wire.statusText,
    rawHeaders: wire.rawHeaders,
    text: NULL_BODY.has(status) ? null : decoded(wire.body, wire.contentEncoding).toString("utf8"),
  }
}

/**
 * A `fetch` for oauth4webapi's `customFetch` option: one request, answered within `timeoutMs` or
 * rejected with a `ProviderHttpError` (`ETIMEDOUT`); network failures reject with Node's own error.
 * @example o.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { [o.customFetch]: providerFetch(10_000) })
 */
export function providerFetch(timeoutMs: number): (url: string, init: ProviderRequest) => Promise<Response> {
  return (url, init) => providerRequest(url, init, timeoutMs).then(answerResponse)
}

/**
 * One request to a provider (its URL as text, or parsed once by the caller) on a kept-alive connection (oauth-wire.ts), answered whole within
 * `timeoutMs` (else `ProviderHttpError` `ETIMEDOUT`; network failures reject with Node's own error): what
 * {@link providerFetch} answers, before it becomes a web `Response`.
 * @example const answer = await providerRequest(tokenEndpoint, { method: "POST", headers, body }, 10_000)
 */
export function providerRequest(href: string | URL, init: ProviderRequest, timeoutMs: number): Promise<ProviderAnswer> {
  const body = init.body === undefined || init.body === null ? undefined : String(init.body)
  const request = { method: init.method, headers: init.headers, body, timeoutMs, signal: init.signal }
  // a URL that does not parse rejects, as it did when this was an async function
  let url: URL
  try {
    url = typeof href === "string" ? new URL(href) : href
  } catch (err) {
    return Promise.reject(err)
  }
  return wireRequest(url, request).then(providerAnswer)
}
