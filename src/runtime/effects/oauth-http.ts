/**
 * The HTTP client for a provider's token and userinfo endpoints: oauth4webapi's `customFetch` on
 * `node:http` / `node:https` with kept-alive connections. The global `fetch` (undici) costs several
 * times the CPU per request for the same exchange (its web streams, `AbortSignal` and per-request
 * objects); a sign-in makes one or two such requests, so they are a large part of a callback's CPU.
 *
 * Every request has one deadline from the first byte sent to the last byte read (the provider's
 * `timeout`), a bounded answer (`MAX_BODY_BYTES`, compressed or not), no redirects followed (the answer
 * is returned as it is, like `redirect: "manual"`), and `https:` with Node's TLS verification, which
 * nothing here turns off. Idle connections close before the server's announced `Keep-Alive` timeout
 * (Node's agent does that) and after `IDLE_MS` at most.
 */
import { Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib"
import { answerResponse } from "./oauth-response.js"

/** The largest answer read from a provider's endpoint: token, userinfo and error answers are a few kB. */
export const MAX_BODY_BYTES = 1024 * 1024
const IDLE_MS = 4_000

const agents = {
  "http:": new HttpAgent({ keepAlive: true, timeout: IDLE_MS, scheduling: "lifo" }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: IDLE_MS, scheduling: "lifo" }),
}

/** Why a provider request failed before an answer was complete: no answer in time, or one too large. */
export class ProviderHttpError extends Error {
  override name = "ProviderHttpError"
  constructor(
    message: string,
    readonly code: "ETIMEDOUT" | "ETOOLARGE" | "EBADENCODING",
  ) {
    super(message)
  }
}

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

function answerOf(res: IncomingMessage, body: Buffer): ProviderAnswer {
  const status = res.statusCode ?? 0
  return {
    status,
    statusText: res.statusMessage ?? "",
    rawHeaders: res.rawHeaders,
    text: NULL_BODY.has(status) ? null : decoded(body, res.headers["content-encoding"]).toString("utf8"),
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
 * One request to a provider on the kept-alive node:http(s) client, answered whole within `timeoutMs`
 * (else `ProviderHttpError` `ETIMEDOUT`; network failures reject with Node's own error): what
 * {@link providerFetch} answers, before it becomes a web `Response`.
 * @example const answer = await providerRequest(tokenEndpoint, { method: "POST", headers, body }, 10_000)
 */
export function providerRequest(href: string, init: ProviderRequest, timeoutMs: number): Promise<ProviderAnswer> {
  let url: URL
  try {
    url = new URL(href)
  } catch (err) {
    return Promise.reject(err)
  }
  return send(url, init, timeoutMs)
}

function send(url: URL, init: ProviderRequest, timeoutMs: number): Promise<ProviderAnswer> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.reject(new TypeError(`Not an HTTP URL: ${url.protocol}`))
  const body = init.body === undefined || init.body === null ? undefined : String(init.body)
  const headers: OutgoingHttpHeaders = { ...init.headers }
  if (body !== undefined) headers["content-length"] = Buffer.byteLength(body)
  const https = url.protocol === "https:"
  return new Promise<ProviderAnswer>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: init.method,
      headers,
      agent: https ? agents["https:"] : agents["http:"],
    })
    let settled = false
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      init.signal?.removeEventListener("abort", onAbort)
      req.destroy()
      reject(err)
    }
    const deadline = setTimeout(
      () => fail(new ProviderHttpError(`No answer from ${url.origin} within ${timeoutMs} ms.`, "ETIMEDOUT")),
      timeoutMs,
    )
    const onAbort = () => fail(init.signal?.reason instanceof Error ? init.signal.reason : new Error("The request was aborted."))
    if (init.signal?.aborted) return onAbort()
    init.signal?.addEventListener("abort", onAbort, { once: true })
    req.on("error", fail)
    req.on("response", (res) => {
      const declared = Number(res.headers["content-length"])
      if (declared > MAX_BODY_BYTES)
        return fail(new ProviderHttpError(`The answer from ${url.origin} is larger than ${MAX_BODY_BYTES} bytes.`, "ETOOLARGE"))
      const chunks: Buffer[] = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES)
          fail(new ProviderHttpError(`The answer from ${url.origin} is larger than ${MAX_BODY_BYTES} bytes.`, "ETOOLARGE"))
        else chunks.push(chunk)
      })
      res.on("error", fail)
      res.on("close", () => {
        if (!res.complete) fail(new Error(`The connection to ${url.origin} closed before the answer was complete.`))
      })
      res.on("end", () => {
        if (settled) return
        let answer: ProviderAnswer
        try {
          answer = answerOf(res, (chunks.length === 1 ? chunks[0] : undefined) ?? Buffer.concat(chunks, size))
        } catch (err) {
          return fail(err instanceof Error ? err : new Error(String(err)))
        }
        settled = true
        clearTimeout(deadline)
        init.signal?.removeEventListener("abort", onAbort)
        resolve(answer)
      })
    })
    req.end(body)
  })
}
