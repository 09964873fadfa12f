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
import { type Deadlined, unwatchDeadline, watchDeadline } from "../run-deadlines.js"
import { AnswerReader, FIELD_VALUE, ProviderHttpError, type Read, TOKEN, type WireAnswer } from "./oauth-wire-read.js"

export { MAX_BODY_BYTES, ProviderHttpError, type WireAnswer } from "./oauth-wire-read.js"

/**
 * One kept connection and what it serves now: an exchange (the request in flight reads the socket's
 * events) or nothing (idle in its origin's list until `idleUntil`: any event then ends it). Its
 * listeners are set once, so a reused connection costs no listener or timer per request.
 */
class Connection {
  exchange: Exchange | undefined
  idleUntil = 0

  constructor(
    readonly socket: Socket,
    readonly key: string,
  ) {
    socket
      .on("data", (data: Buffer) => (this.exchange ? this.exchange.data(data) : this.drop()))
      .on("end", () => (this.exchange ? this.exchange.end() : this.drop()))
      .on("error", (err: Error) => (this.exchange ? this.exchange.fail(err) : this.drop()))
      .on("close", () => (this.exchange ? this.exchange.closed() : this.drop()))
  }

  /** Out of the idle list, and closed. */
  drop(): void {
    const list = idle.get(this.key)
    const at = list?.indexOf(this) ?? -1
    if (at >= 0) list?.splice(at, 1)
    this.socket.destroy()
  }
}

/** Idle connections per origin, the most recently used last. */
const idle = new Map<string, Connection[]>()
/** Per origin, the one timer that closes its idle connections once their time is up, and when it fires. */
const sweeps = new Map<string, { readonly timer: NodeJS.Timeout; readonly at: number }>()

/** Sweeps `key`'s idle connections at `at` (or sooner, if a sweep is already set for then). */
function sweepAt(key: string, at: number, now: number): void {
  const set = sweeps.get(key)
  if (set && set.at <= at) return
  if (set) clearTimeout(set.timer)
  sweeps.set(key, { timer: setTimeout(sweep, Math.max(at - now, 1), key).unref(), at })
}

function sweep(key: string): void {
  sweeps.delete(key)
  const list = idle.get(key) ?? []
  const now = Date.now()
  for (const kept of list.filter((c) => c.idleUntil <= now)) kept.drop()
  if (list.length > 0) sweepAt(key, Math.min(...list.map((c) => c.idleUntil)), now)
}

function take(url: URL, key: string): Connection {
  const list = idle.get(key)
  const now = Date.now()
  for (let kept = list?.pop(); kept; kept = list?.pop()) {
    if (!kept.socket.destroyed && kept.idleUntil > now) return kept
    kept.socket.destroy()
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const https = url.protocol === "https:"
  const port = Number(url.port) || (https ? 443 : 80)
  const socket = https ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }) }) : netConnect({ host, port })
  // never what keeps the process alive: an exchange's deadline timer does that while it waits
  return new Connection(socket.setNoDelay(true).setKeepAlive(true, 1_000).unref(), key)
}

function release(connection: Connection, idleMs: number): void {
  const { key } = connection
  const now = Date.now()
  connection.exchange = undefined
  connection.idleUntil = now + idleMs
  let list = idle.get(key)
  if (!list) idle.set(key, (list = []))
  list.push(connection)
  sweepAt(key, connection.idleUntil, now)
}

/** Validated header lines by headers object: a provider's kept token request sends the same object each time. */
const headerLines = new WeakMap<Readonly<Record<string, string>>, string>()

function linesOf(headers: Readonly<Record<string, string>>): string {
  const known = headerLines.get(headers)
  if (known !== undefined) return known
  let lines = ""
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) throw new TypeError(`Invalid header "${name}".`)
    const lower = name.toLowerCase()
    if (lower === "host" || lower === "connection" || lower === "content-length" || lower === "transfer-encoding") continue
    lines += `${name}: ${value}\r\n`
  }
  headerLines.set(headers, lines)
  return lines
}

const ASCII = /^[\x00-\x7f]*$/

/** What a request needs of its URL, read once per URL object (a kept token request sends the same one each time). */
interface Target {
  readonly href: string
  /** The origin's key in the idle lists: scheme, host and port as written. */
  readonly key: string
  readonly origin: string
  readonly path: string
  readonly host: string
  /** The last head made for it (request line, Host, Connection, the header lines) and whether it is ASCII. */
  head:
    | { readonly method: string; readonly headers: Readonly<Record<string, string>>; readonly text: string; readonly ascii: boolean }
    | undefined
}

const targets = new WeakMap<URL, Target>()

function targetOf(url: URL): Target {
  const known = targets.get(url)
  if (known && known.href === url.href) return known
  const target = {
    href: url.href,
    key: `${url.protocol}//${url.host}`,
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    host: url.host,
    head: undefined,
  }
  targets.set(url, target)
  return target
}

/** The request's bytes: request line, Host, the given headers, Content-Length, the body. */
function requestBytes(
  target: Target,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
): string | Buffer {
  let head = target.head
  if (head?.method !== method || head.headers !== headers) {
    if (!TOKEN.test(method)) throw new TypeError(`Not an HTTP method: ${method}`)
    const text = `${method} ${target.path} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: keep-alive\r\n${linesOf(headers)}`
    head = { method, headers, text, ascii: ASCII.test(text) }
    target.head = head
  }
  if (body === undefined) return Buffer.from(`${head.text}\r\n`, "latin1")
  const start = `${head.text}Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n`
  // an ASCII head reads the same in UTF-8: one string, one write; else the head's bytes as Latin-1
  return head.ascii ? start + body : Buffer.concat([Buffer.from(start, "latin1"), Buffer.from(body, "utf8")])
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
  const target = targetOf(url)
  let bytes: string | Buffer
  try {
    bytes = requestBytes(target, request.method, request.headers, request.body)
  } catch (err) {
    return Promise.reject(err)
  }
  const { signal, timeoutMs } = request
  if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("The request was aborted."))
  return new Promise<WireAnswer>((resolve, reject) => {
    new Exchange(take(url, target.key), target.origin, timeoutMs, signal, resolve, reject).send(bytes)
  })
}

/** The longest delay a Node timer keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * One request on a connection: reads the answer as it arrives and settles once, within the deadline.
 * The deadline is watched with the runner's shared timer (run-deadlines.ts: one timer for every run
 * and request that waits, which keeps the process alive while one does), not a timer per request.
 */
class Exchange implements Deadlined {
  readonly #reader: AnswerReader
  /** `performance.now()` ms by which the answer must be complete. */
  readonly deadline: number
  /** A timer of its own, for a timeout the shared one cannot hold (over Node's timer range: it fires at once, as it did). */
  readonly #timer: NodeJS.Timeout | undefined
  #settled = false
  readonly #onAbort: (() => void) | undefined

  constructor(
    readonly connection: Connection,
    readonly origin: string,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly resolve: (answer: WireAnswer) => void,
    readonly reject: (err: Error) => void,
  ) {
    this.#reader = new AnswerReader(origin)
    connection.exchange = this
    this.deadline = performance.now() + timeoutMs
    if (timeoutMs >= 0 && timeoutMs <= MAX_TIMER_MS) {
      this.#timer = undefined
      watchDeadline(this)
    } else this.#timer = setTimeout(() => this.expire(), timeoutMs)
    if (signal) {
      this.#onAbort = () => this.fail(signal.reason instanceof Error ? signal.reason : new Error("The request was aborted."))
      signal.addEventListener("abort", this.#onAbort, { once: true })
    }
  }

  /** The deadline passed before the answer was complete. */
  expire(): void {
    this.fail(new ProviderHttpError(`No answer from ${this.origin} within ${this.timeoutMs} ms.`, "ETIMEDOUT"))
  }

  send(bytes: string | Buffer): void {
    this.connection.socket.write(bytes)
  }

  #stop(): void {
    this.#settled = true
    if (this.#timer) clearTimeout(this.#timer)
    else unwatchDeadline(this)
    if (this.#onAbort) this.signal?.removeEventListener("abort", this.#onAbort)
  }

  fail(err: Error): void {
    if (this.#settled) return
    this.#stop()
    this.connection.exchange = undefined
    this.connection.socket.destroy()
    this.reject(err)
  }

  #finish({ head, body }: NonNullable<Read>): void {
    this.#stop()
    const { connection } = this
    // reused only when the answer ended the exchange: nothing of it left unread, nothing of ours unsent
    if (head.reusable && !this.#reader.leftover && connection.socket.writableLength === 0) release(connection, head.idleMs)
    else {
      connection.exchange = undefined
      connection.socket.destroy()
    }
    const { answer } = head
    this.resolve({
      status: answer.status,
      statusText: answer.statusText,
      rawHeaders: answer.rawHeaders,
      contentEncoding: answer.contentEncoding,
      body,
    })
  }

  #settle(answer: Read): void {
    if (answer && !this.#settled) this.#finish(answer)
  }

  data(data: Buffer): void {
    if (this.#settled) return
    try {
      this.#settle(this.#reader.feed(data))
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)))
    }
  }

  end(): void {
    if (this.#settled) return
    const answer = this.#reader.end()
    if (answer) this.#settle(answer)
    else this.closed()
  }

  closed(): void {
    this.fail(new Error(`The connection to ${this.origin} closed before the answer was complete.`))
  }
}
