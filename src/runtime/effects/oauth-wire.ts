/**
 * HTTP/1.1 on a socket, for the few requests a sign-in makes to a provider (the token and userinfo
 * endpoints): one request per connection at a time, connections kept alive per origin and reused
 * last-in first-out, the answer read whole. node:http's client costs several times the CPU per request
 * for the same exchange (its request and response objects, streams, agent bookkeeping), and a callback
 * waits on one such request. TLS is `node:tls` with its default verification, which nothing here turns
 * off. Answers are framed by Content-Length, chunked transfer coding, or the end of the connection
 * (RFC 9112 §6.3); interim 1xx answers are skipped; anything malformed ends the request with an error
 * and the connection, never with a guess.
 */
import { isIP, connect as netConnect, type Socket } from "node:net"
import { connect as tlsConnect } from "node:tls"
import { AnswerReader, FIELD_VALUE, ProviderHttpError, type Read, TOKEN, type WireAnswer } from "./oauth-wire-read.js"

export { MAX_BODY_BYTES, ProviderHttpError, type WireAnswer } from "./oauth-wire-read.js"

interface Idle {
  readonly socket: Socket
  readonly timer: NodeJS.Timeout
  readonly gone: () => void
}

const idle = new Map<string, Idle[]>()

function take(url: URL, key: string): Socket {
  const list = idle.get(key)
  for (let kept = list?.pop(); kept; kept = list?.pop()) {
    clearTimeout(kept.timer)
    kept.socket.off("close", kept.gone).off("end", kept.gone).off("error", kept.gone).off("data", kept.gone)
    if (!kept.socket.destroyed) return kept.socket.ref()
    kept.socket.destroy()
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const https = url.protocol === "https:"
  const port = Number(url.port) || (https ? 443 : 80)
  const socket = https ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }) }) : netConnect({ host, port })
  return socket.setNoDelay(true).setKeepAlive(true, 1_000)
}

function release(key: string, socket: Socket, idleMs: number): void {
  const gone = () => {
    clearTimeout(timer)
    const list = idle.get(key)
    const at = list?.findIndex((kept) => kept.socket === socket) ?? -1
    if (at >= 0) list?.splice(at, 1)
    socket.destroy()
  }
  const timer = setTimeout(gone, idleMs).unref()
  socket.on("close", gone).on("end", gone).on("error", gone).on("data", gone).unref()
  let list = idle.get(key)
  if (!list) idle.set(key, (list = []))
  list.push({ socket, timer, gone })
}

/** The request's bytes: request line, Host, the given headers, Content-Length, the body. */
function requestBytes(url: URL, method: string, headers: Readonly<Record<string, string>>, body: string | undefined): Buffer {
  if (!TOKEN.test(method)) throw new TypeError(`Not an HTTP method: ${method}`)
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n`
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) throw new TypeError(`Invalid header "${name}".`)
    const lower = name.toLowerCase()
    if (lower === "host" || lower === "connection" || lower === "content-length" || lower === "transfer-encoding") continue
    head += `${name}: ${value}\r\n`
  }
  const payload = body === undefined ? undefined : Buffer.from(body, "utf8")
  if (payload) head += `Content-Length: ${payload.length}\r\n`
  const start = Buffer.from(`${head}\r\n`, "latin1")
  return payload ? Buffer.concat([start, payload]) : start
}

/** A request to a provider: method, headers, body (UTF-8), its deadline, and the caller's abort signal. */
export interface WireRequest {
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
}

/**
 * Sends one request on a kept-alive (or new) connection to `url`'s origin and reads the whole answer,
 * within `timeoutMs` (else `ProviderHttpError` `ETIMEDOUT`); connection failures reject with Node's own
 * error, a malformed answer with `EBADANSWER`, one over `MAX_BODY_BYTES` with `ETOOLARGE`.
 * @example const answer = await wireRequest(new URL(tokenEndpoint), { method: "POST", headers, body, timeoutMs: 10_000 })
 */
export function wireRequest(url: URL, request: WireRequest): Promise<WireAnswer> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.reject(new TypeError(`Not an HTTP URL: ${url.protocol}`))
  let bytes: Buffer
  try {
    bytes = requestBytes(url, request.method, request.headers, request.body)
  } catch (err) {
    return Promise.reject(err)
  }
  const { signal, timeoutMs } = request
  if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("The request was aborted."))
  const key = `${url.protocol}//${url.host}`
  return new Promise<WireAnswer>((resolve, reject) => {
    const socket = take(url, key)
    const reader = new AnswerReader(url.origin)
    let settled = false
    const stop = () => {
      settled = true
      clearTimeout(deadline)
      signal?.removeEventListener("abort", onAbort)
      socket.off("data", onData).off("end", onEnd).off("error", fail).off("close", onClose)
    }
    function fail(err: Error): void {
      if (settled) return
      stop()
      socket.destroy()
      reject(err)
    }
    const finish = ({ head, body }: NonNullable<Read>) => {
      stop()
      // reused only when the answer ended the exchange: nothing of it left unread, nothing of ours unsent
      if (head.reusable && !reader.leftover && socket.writableLength === 0) release(key, socket, head.idleMs)
      else socket.destroy()
      resolve({ ...head.answer, body })
    }
    const settle = (read: () => Read) => {
      try {
        const answer = read()
        if (answer) finish(answer)
      } catch (err) {
        fail(err instanceof Error ? err : new Error(String(err)))
      }
    }
    const cutOff = () => new Error(`The connection to ${url.origin} closed before the answer was complete.`)
    const onData = (data: Buffer) => settle(() => reader.feed(data))
    const onEnd = () =>
      settle(() => {
        const answer = reader.end()
        if (!answer) fail(cutOff())
        return answer
      })
    const onClose = () => fail(cutOff())
    const onAbort = () => fail(signal?.reason instanceof Error ? signal.reason : new Error("The request was aborted."))
    const deadline = setTimeout(
      () => fail(new ProviderHttpError(`No answer from ${url.origin} within ${timeoutMs} ms.`, "ETIMEDOUT")),
      timeoutMs,
    )
    signal?.addEventListener("abort", onAbort, { once: true })
    socket.on("data", onData).on("end", onEnd).on("error", fail).on("close", onClose)
    socket.write(bytes)
  })
}
