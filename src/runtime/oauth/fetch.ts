/**
 * The `fetch` oauth4webapi gets for a provider that brings none of its own: Node's global `fetch` (looked
 * up at each call, so an application's replacement or undici dispatcher is used), its answer's body
 * bounded by {@link MAX_BODY_BYTES} after `content-encoding` is undone. oauth4webapi sets
 * `redirect: "manual"` and the deadline's `signal` on every request it makes.
 */

/** The largest provider answer body read, decoded. */
export const MAX_BODY_BYTES = 1024 * 1024

/** A provider answer refused before it was read whole. */
export class ProviderHttpError extends Error {
  override name = "ProviderHttpError"
  constructor(
    message: string,
    readonly code: "ETOOLARGE",
  ) {
    super(message)
  }
}

/** What oauth4webapi hands a custom fetch (its `CustomFetchOptions`, any method and body type). */
export interface ProviderRequest {
  method: string
  headers: Record<string, string>
  body?: URLSearchParams | string | null
  redirect?: RequestRedirect
  signal?: AbortSignal
}

/** A fetch as oauth4webapi calls it. */
export type ProviderFetch = (url: string, init: ProviderRequest) => Promise<Response>

const tooLarge = (url: string) =>
  new ProviderHttpError(`The answer from ${new URL(url).origin} is larger than ${MAX_BODY_BYTES} bytes.`, "ETOOLARGE")

/** Whether fetch hands the body on as it arrives, so a `content-length` bounds it (undici frames the body by it). */
function identity(response: Response): boolean {
  const coding = response.headers.get("content-encoding")
  return coding === null || coding.trim() === "" || coding.trim().toLowerCase() === "identity"
}

/**
 * `response` with its body bounded: refused at once when its declared length is too large, handed on
 * as it is when that length bounds it, else read through a counter that errors the body past the bound
 * (which cancels the download).
 */
function bounded(url: string, response: Response): Response {
  const { body } = response
  if (body === null) return response
  const declared = response.headers.get("content-length")
  const length = declared === null ? Number.NaN : Number(declared)
  if (length > MAX_BODY_BYTES) {
    void body.cancel().catch(() => {})
    throw tooLarge(url)
  }
  if (Number.isSafeInteger(length) && identity(response)) return response
  let read = 0
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength
        if (read > MAX_BODY_BYTES) controller.error(tooLarge(url))
        else controller.enqueue(chunk)
      },
    }),
  )
  // the decoded body handed on: its length and coding are no longer the wire's
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  headers.delete("content-encoding")
  return new Response(counted, { status: response.status, statusText: response.statusText, headers })
}

/**
 * The global `fetch` with the answer's body bounded, for oauth4webapi's `customFetch` option.
 * @example o.userInfoRequest(server, client, accessToken, { [o.customFetch]: providerFetch, signal: AbortSignal.timeout(10_000) })
 */
export const providerFetch: ProviderFetch = (url, init) => fetch(url, init).then((response) => bounded(url, response))
