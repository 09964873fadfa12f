/**
 * Writing an outgoing response onto Node's `ServerResponse` for the Express integration: status text,
 * each `Set-Cookie` on its own line (replacing earlier lines of the same cookie), repeated headers kept.
 */
import type { ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import type { Outgoing } from "../runtime/http/respond.js"

function cookieName(setCookie: string): string {
  const eq = setCookie.indexOf("=")
  return (eq === -1 ? setCookie : setCookie.slice(0, eq)).trim()
}

/** Adds `Set-Cookie` lines, each its own header line; earlier lines for the same cookie names are replaced. */
export function setCookies(res: ServerResponse, lines: string[]): void {
  const earlier = res.getHeader("set-cookie")
  if (earlier === undefined) {
    res.setHeader("Set-Cookie", lines)
    return
  }
  const ours = new Set(lines.map(cookieName))
  const kept = (Array.isArray(earlier) ? earlier : typeof earlier === "string" ? [earlier] : []).filter(
    (line) => !ours.has(cookieName(line)),
  )
  res.setHeader("Set-Cookie", [...kept, ...lines])
}

/**
 * Writes an outgoing response: proper status text, every `Set-Cookie` on its own line, no empty
 * `Content-Type`. `Set-Cookie` lines earlier middleware set are kept unless this response sets the same name.
 * A stream body is piped; when the client goes away the stream is cancelled.
 */
export function write(res: ServerResponse, out: Outgoing): void {
  res.statusCode = out.status
  res.statusMessage = out.statusText
  let cookies: string[] | undefined
  const { headers } = out
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i] as readonly [string, string]
    if (name === "Set-Cookie" || (name.length === 10 && name.toLowerCase() === "set-cookie")) (cookies ??= []).push(value)
    else if (sameNameBefore(headers, i, name) && res.hasHeader(name)) res.appendHeader(name, value)
    else res.setHeader(name, value)
  }
  if (cookies) setCookies(res, cookies)
  if (typeof out.body === "string") {
    res.end(out.body)
    return
  }
  res.flushHeaders()
  // a client that disconnects ends the pipeline with a premature-close error: nothing to report
  pipeline(Readable.fromWeb(out.body as NodeReadableStream<Uint8Array>), res).catch(() => undefined)
}

/** Whether `headers` names `name` (any case) before index `i`: a repeated header is appended, not replaced. */
function sameNameBefore(headers: Outgoing["headers"], i: number, name: string): boolean {
  let lower: string | undefined
  for (let j = 0; j < i; j++) {
    const other = (headers[j] as readonly [string, string])[0]
    // names of another length differ: no lower-case copies made for them
    if (other.length === name.length && (other === name || other.toLowerCase() === (lower ??= name.toLowerCase()))) return true
  }
  return false
}
