/**
 * Reading an HTTP/1.1 answer off a connection (RFC 9112): the status line and header fields, then the
 * body framed by Content-Length, chunked transfer coding or the connection's end (§6.3), with interim
 * 1xx answers skipped. Anything malformed or too large is an error, never a guess.
 */

/** The largest answer read from a provider's endpoint: token, userinfo and error answers are a few kB. */
export const MAX_BODY_BYTES = 1024 * 1024
/** The largest status line and header section. */
const MAX_HEAD_BYTES = 64 * 1024
/** Why a provider request failed before an answer was complete. */
export class ProviderHttpError extends Error {
  override name = "ProviderHttpError"
  constructor(
    message: string,
    readonly code: "ETIMEDOUT" | "ETOOLARGE" | "EBADENCODING" | "EBADANSWER",
  ) {
    super(message)
  }
}

/** An answer as read: status, raw header lines (name, value, …) and the body with its framing undone. */
export interface WireAnswer {
  readonly status: number
  readonly statusText: string
  readonly rawHeaders: string[]
  /** The Content-Encoding field's values joined by ", " (several fields are one list, RFC 9110 §5.3); undefined without one. */
  readonly contentEncoding: string | undefined
  readonly body: Buffer
}

export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})[\t ]*(?:;.*)?$/

/** An idle connection is kept this long at most (and a second less than the server's `Keep-Alive: timeout`). */
export const IDLE_MS = 4_000

/** How the answer's body is framed, from its head (RFC 9112 §6.3), and whether the connection stays. */
interface Head {
  readonly answer: Omit<WireAnswer, "body">
  readonly framing: { readonly kind: "none" | "close" | "chunked" } | { readonly kind: "length"; readonly length: number }
  readonly reusable: boolean
  readonly idleMs: number
}

/** A header field's value (`text` from `from` to `to`) without the optional whitespace around it (RFC 9110 §5.5: SP and HTAB). */
function trimmedValue(text: string, from: number, to: number): string {
  let start = from
  let end = to
  while (start < end && isBlank(text.charCodeAt(start))) start++
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

const isBlank = (char: number): boolean => char === 0x20 || char === 0x09

/** The lengths of the field names the reader acts on (connection, keep-alive; content-length; content-encoding; transfer-encoding): only those are lower-cased. */
const WATCHED_LENGTHS = new Set([10, 14, 16, 17])

function malformedHeader(origin: string): ProviderHttpError {
  return new ProviderHttpError(`${origin} answered a malformed header.`, "EBADANSWER")
}

function parseHead(text: string, origin: string): Head {
  const firstEnd = text.indexOf("\r\n")
  const status = STATUS_LINE.exec(firstEnd < 0 ? text : text.slice(0, firstEnd))
  if (!status) throw new ProviderHttpError(`${origin} answered something other than HTTP/1.x.`, "EBADANSWER")
  const rawHeaders: string[] = []
  let length: string | undefined
  let coding: string | undefined
  let encoding: string | undefined
  let close = status[1] === "0"
  let idleMs = IDLE_MS
  // each line "name: value" (a token, a colon, the value between optional blanks), read in place between its CRLFs
  for (let at = firstEnd; at >= 0; ) {
    const from = at + 2
    at = text.indexOf("\r\n", from)
    const end = at < 0 ? text.length : at
    const colon = text.indexOf(":", from)
    if (colon <= from || colon >= end) throw malformedHeader(origin)
    const name = text.slice(from, colon)
    const value = trimmedValue(text, colon + 1, end)
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) throw malformedHeader(origin)
    rawHeaders.push(name, value)
    const lower = WATCHED_LENGTHS.has(name.length) ? name.toLowerCase() : ""
    if (lower === "content-length") {
      if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== value)) {
        throw new ProviderHttpError(`${origin} answered a bad Content-Length.`, "EBADANSWER")
      }
      length = value
    } else if (lower === "transfer-encoding") coding = coding === undefined ? value : `${coding}, ${value}`
    else if (lower === "content-encoding") encoding = encoding === undefined ? value : `${encoding}, ${value}`
    else if (lower === "connection") close ||= /(?:^|,)\s*close\s*(?:,|$)/i.test(value)
    else if (lower === "keep-alive") {
      const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(value)?.[1]
      if (timeout !== undefined) idleMs = Math.min(IDLE_MS, Number(timeout) * 1000 - 1000)
    }
  }
  const code = Number(status[2])
  const answer = { status: code, statusText: status[3] ?? "", rawHeaders, contentEncoding: encoding }
  if (coding !== undefined && coding.trim().toLowerCase() !== "chunked") {
    throw new ProviderHttpError(`${origin} answered a transfer coding other than chunked: ${coding}.`, "EBADANSWER")
  }
  const framing: Head["framing"] =
    code === 204 || code === 304
      ? { kind: "none" }
      : coding !== undefined
        ? { kind: "chunked" }
        : length !== undefined
          ? { kind: "length", length: Number(length) }
          : { kind: "close" }
  if (framing.kind === "length" && framing.length > MAX_BODY_BYTES) {
    throw new ProviderHttpError(`The answer from ${origin} is larger than ${MAX_BODY_BYTES} bytes.`, "ETOOLARGE")
  }
  return { answer, framing, reusable: !close && framing.kind !== "close" && idleMs > 0, idleMs }
}

const CRLF = 0x0a0d
/** No bytes (never written to: it has none), shared by every reader. */
const EMPTY = Buffer.alloc(0)
export type Read = { readonly head: Head; readonly body: Buffer } | undefined

/** One answer read from a connection's bytes as they arrive; `feed` and `end` give it once complete. */
export class AnswerReader {
  #pending: Buffer = EMPTY
  #head: Head | undefined
  readonly #parts: Buffer[] = []
  #size = 0
  #state: "size" | "data" | "crlf" | "trailers" = "size"
  #left = 0
  /** Bytes after the answer: the connection is not reused. */
  leftover = false

  constructor(readonly origin: string) {}

  #fail(what: string): never {
    throw new ProviderHttpError(`${this.origin} answered ${what}.`, "EBADANSWER")
  }

  #keep(part: Buffer): void {
    this.#size += part.length
    if (this.#size > MAX_BODY_BYTES) {
      throw new ProviderHttpError(`The answer from ${this.origin} is larger than ${MAX_BODY_BYTES} bytes.`, "ETOOLARGE")
    }
    this.#parts.push(part)
  }

  #done(head: Head): Read {
    this.leftover = this.#pending.length > 0
    const body = this.#parts.length === 1 ? (this.#parts[0] ?? EMPTY) : Buffer.concat(this.#parts, this.#size)
    return { head, body }
  }

  feed(data: Buffer): Read {
    this.#pending = this.#pending.length > 0 ? Buffer.concat([this.#pending, data]) : data
    while (!this.#head) {
      const at = this.#pending.indexOf("\r\n\r\n")
      if (at < 0 ? this.#pending.length > MAX_HEAD_BYTES : at > MAX_HEAD_BYTES) this.#fail("a header section that is too large")
      if (at < 0) return undefined
      const head = parseHead(this.#pending.toString("latin1", 0, at), this.origin)
      this.#pending = this.#pending.subarray(at + 4)
      const { status } = head.answer
      if (status === 101) this.#fail("a protocol switch")
      if (status >= 200) this.#head = head
    }
    const head = this.#head
    const { framing } = head
    if (framing.kind === "none") return this.#done(head)
    if (framing.kind === "close") {
      if (this.#pending.length > 0) this.#keep(this.#pending)
      this.#pending = EMPTY
      return undefined
    }
    if (framing.kind === "length") {
      const need = framing.length - this.#size
      const part = this.#pending.subarray(0, need)
      this.#pending = this.#pending.subarray(part.length)
      if (part.length > 0) this.#keep(part)
      return this.#size === framing.length ? this.#done(head) : undefined
    }
    return this.#chunks(head)
  }

  /** RFC 9112 §7.1: chunk-size [ext] CRLF, data CRLF, …, a zero size, trailer fields, CRLF. */
  #chunks(head: Head): Read {
    for (;;) {
      const pending = this.#pending
      if (this.#state === "size" || this.#state === "trailers") {
        const eol = pending.indexOf("\r\n")
        if (eol < 0) {
          if (pending.length > MAX_HEAD_BYTES) this.#fail("a chunk or trailer line that is too long")
          return undefined
        }
        const line = pending.toString("latin1", 0, eol)
        this.#pending = pending.subarray(eol + 2)
        if (this.#state === "trailers") {
          if (line === "") return this.#done(head)
          continue
        }
        const size = CHUNK_SIZE.exec(line)?.[1]
        if (size === undefined) this.#fail("a malformed chunk size")
        this.#left = Number.parseInt(size, 16)
        this.#state = this.#left === 0 ? "trailers" : "data"
      } else if (this.#state === "data") {
        if (pending.length === 0) return undefined
        const part = pending.subarray(0, this.#left)
        this.#keep(part)
        this.#left -= part.length
        this.#pending = pending.subarray(part.length)
        if (this.#left === 0) this.#state = "crlf"
      } else {
        if (pending.length < 2) return undefined
        if (pending.readUInt16LE(0) !== CRLF) this.#fail("a chunk without its line end")
        this.#pending = pending.subarray(2)
        this.#state = "size"
      }
    }
  }

  /** The connection ended: an answer framed by its end is complete now; any other is cut off. */
  end(): Read {
    return this.#head?.framing.kind === "close" ? this.#done(this.#head) : undefined
  }
}
