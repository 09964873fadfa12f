/**
 * Request bodies for the Express integration: the app's own parsers' result when they ran, otherwise
 * the stream read here (bounded) and parsed by the runtime's one body parser (urlencoded or JSON).
 * Other content types give no body.
 */
import type { IncomingMessage } from "node:http"
import { UnknownAction } from "../errors.js"
import { bodyKind, parseBody } from "../runtime/http/body.js"

/** Bodies larger than this are refused: auth forms are small. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * Reads the stream as UTF-8, at most `limit` bytes. Past the limit the rest is drained, not kept, and the
 * read fails once the request has ended, so the 400 reaches the client on a healthy connection
 * (as body-parser does). A declared `Content-Length` over the limit fails the same way without buffering.
 */
function readStream(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = Number(req.headers["content-length"] ?? 0) > limit
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return
      size += chunk.length
      if (size > limit) {
        tooLarge = true
        chunks.length = 0
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => {
      if (tooLarge) reject(new UnknownAction("The request body is too large."))
      else resolve((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8"))
    })
    req.on("error", (err) => reject(new UnknownAction("The request body could not be read.", { err })))
  })
}

/**
 * The body when all of it is in the stream's buffer already (as many bytes as `Content-Length` declares)
 * and nobody reads the stream: taken in one `read()`, without a listener, a flowing turn or a `data`
 * event. Undefined otherwise (the body is still arriving, it is chunked, or another reader has the stream).
 */
function bufferedBody(req: IncomingMessage, declared: number): string | undefined {
  if (!(declared >= 0) || req.readableLength < declared) return undefined
  if (req.readableFlowing !== null || req.readableObjectMode || req.readableEncoding !== null) return undefined
  const data: unknown = req.read()
  if (data === null) return ""
  if (!Buffer.isBuffer(data)) throw new UnknownAction("The request body could not be read.")
  return data.toString("utf8")
}

/** The parsed body of a POST. Throws `UnknownAction` (→ 400) on malformed JSON or an oversized body. */
export async function readBody(req: IncomingMessage & { body?: unknown; _body?: boolean }): Promise<Record<string, unknown> | undefined> {
  if (req._body || (req.body !== undefined && req.readableEnded)) {
    const body = req.body
    return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
  }
  const kind = bodyKind(req.headers["content-type"])
  // not a body the routes read, or consumed by someone else (a parser that left no body)
  if (!kind || req.readableEnded) return undefined
  const declared = req.headers["content-length"] === undefined ? Number.NaN : Number(req.headers["content-length"])
  if (declared <= MAX_BODY_BYTES) {
    // Node parses a body sent with its headers right after the request event that runs this middleware:
    // one turn later it is in the stream's buffer, read from there
    await undefined
    const text = bufferedBody(req, declared)
    if (text !== undefined) return parseBody(kind, text)
  }
  return parseBody(kind, await readStream(req, MAX_BODY_BYTES))
}
