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
 * A web `Response` whose body is already in memory (read whole and bounded above): `text()`, `json()`,
 * `arrayBuffer()` and `clone()` answer from it without a web stream, which would cost more than the
 * rest of reading the answer. Whoever reads `body` (or `blob()`, `formData()`) gets a real `Response`'s
 * stream, and from then on every method is that `Response`'s. The class is made on first use: `extends
 * Response` at import would load Node's fetch implementation (undici, about 3 MB of RSS) in every app,
 * also in one that never calls a provider.
 */
function defineReadResponse() {
  return class ReadResponse extends Response {
    readonly #text: string | null
    #used = false
    #real: Response | undefined

    constructor(text: string | null, init: ResponseInit) {
      super(null, init)
      this.#text = text
    }

    #realized(): Response {
      if (!this.#real) {
        if (this.#used) throw new TypeError("Body is unusable: Body has already been read")
        this.#real = new Response(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers })
      }
      return this.#real
    }

    #take(): string {
      if (this.#used) throw new TypeError("Body is unusable: Body has already been read")
      this.#used = true
      return this.#text ?? ""
    }

    override get body(): Response["body"] {
      return this.#text === null ? null : this.#realized().body
    }

    override get bodyUsed(): boolean {
      return this.#real ? this.#real.bodyUsed : this.#used
    }

    override async text(): Promise<string> {
      return this.#real ? this.#real.text() : this.#take()
    }

    override async json(): Promise<unknown> {
      return this.#real ? this.#real.json() : JSON.parse(this.#take())
    }

    override async arrayBuffer(): Promise<ArrayBuffer> {
      if (this.#real) return this.#real.arrayBuffer()
      return new TextEncoder().encode(this.#take()).buffer
    }

    override blob(): Promise<Blob> {
      return this.#realized().blob()
    }

    override formData(): Promise<FormData> {
      return this.#realized().formData()
    }

    override clone(): Response {
      if (this.#real) return this.#real.clone()
      if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.")
      return new ReadResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers })
    }
  }
}
let ReadResponse: ReturnType<typeof defineReadResponse> | undefined

function toResponse(res: IncomingMessage, body: Buffer): Response {
  const headers = new Headers()
  const raw = res.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]
    const value = raw[i + 1]
    const lower = name?.toLowerCase()
    // the body handed on is decoded: its length and coding are no longer the wire's
    if (name === undefined || value === undefined || lower === "content-encoding" || lower === "content-length") continue
    headers.append(name, value)
  }
  const status = res.statusCode ?? 0
  const text = NULL_BODY.has(status) ? null : decoded(body, res.headers["content-encoding"]).toString("utf8")
  ReadResponse ??= defineReadResponse()
  return new ReadResponse(text, { status, statusText: res.statusMessage ?? "", headers })
}

/**
 * A `fetch` for oauth4webapi's `customFetch` option: one request, answered within `timeoutMs` or
 * rejected with a `ProviderHttpError` (`ETIMEDOUT`); network failures reject with Node's own error.
 * @example o.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { [o.customFetch]: providerFetch(10_000) })
 */
export function providerFetch(timeoutMs: number): (url: string, init: ProviderRequest) => Promise<Response> {
  return (url, init) => send(new URL(url), init, timeoutMs)
}

function send(url: URL, init: ProviderRequest, timeoutMs: number): Promise<Response> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.reject(new TypeError(`Not an HTTP URL: ${url.protocol}`))
  const body = init.body === undefined || init.body === null ? undefined : String(init.body)
  const headers: OutgoingHttpHeaders = { ...init.headers }
  if (body !== undefined) headers["content-length"] = Buffer.byteLength(body)
  const https = url.protocol === "https:"
  return new Promise<Response>((resolve, reject) => {
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
        let response: Response
        try {
          response = toResponse(res, (chunks.length === 1 ? chunks[0] : undefined) ?? Buffer.concat(chunks, size))
        } catch (err) {
          return fail(err instanceof Error ? err : new Error(String(err)))
        }
        settled = true
        clearTimeout(deadline)
        init.signal?.removeEventListener("abort", onAbort)
        resolve(response)
      })
    })
    req.end(body)
  })
}
