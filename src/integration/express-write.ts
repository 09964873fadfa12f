/**
 * Writing an outgoing response onto Node's `ServerResponse` for the Express integration: status text,
 * each `Set-Cookie` on its own line (replacing earlier lines of the same cookie), repeated headers kept.
 */
import type { ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import type { Outgoing } from "../runtime/respond.js"

function cookieName(setCookie: string): string {
  const eq = setCookie.indexOf("=")
  return (eq === -1 ? setCookie : setCookie.slice(0, eq)).trim()
}

/** `lines` after the `Set-Cookie` lines `res` already has, less those naming a cookie `lines` sets. */
function mergedCookies(res: ServerResponse, lines: string[]): string[] {
  const earlier = res.getHeader("set-cookie")
  if (earlier === undefined) return lines
  const ours = new Set(lines.map(cookieName))
  const kept = (Array.isArray(earlier) ? earlier : typeof earlier === "string" ? [earlier] : []).filter(
    (line) => !ours.has(cookieName(line)),
  )
  return [...kept, ...lines]
}

/** Adds `Set-Cookie` lines, each its own header line; earlier lines for the same cookie names are replaced. */
export function setCookies(res: ServerResponse, lines: string[]): void {
  res.setHeader("Set-Cookie", mergedCookies(res, lines))
}

const isSetCookie = (name: string): boolean => name === "Set-Cookie" || (name.length === 10 && name.toLowerCase() === "set-cookie")

/**
 * Writes an outgoing response: proper status text, every `Set-Cookie` on its own line, no empty
 * `Content-Type`. `Set-Cookie` lines earlier middleware set are kept unless this response sets the same name.
 * A text body goes out in one `writeHead` and one `end`, with its `Content-Length` (Node adds none to a
 * head written first); a stream body is piped, and cancelled when the client goes away.
 */
export function write(res: ServerResponse, out: Outgoing, method: string): void {
  const { body } = out
  // HEAD, 204 and 304 answers have no body, and Node then sends no length: the header-by-header path keeps it so
  if (typeof body !== "string" || method === "HEAD" || out.status === 204 || out.status === 304) {
    writeEachHeader(res, out)
    return
  }
  // an object, the form of writeHead's headers every wrapper of it understands (on-headers before 1.1
  // reads an array as [name, value] pairs); a repeated name is one field holding each line
  const fields: Record<string, string | string[]> = {}
  let cookies: string[] | undefined
  const { headers } = out
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i] as readonly [string, string]
    if (isSetCookie(name)) (cookies ??= []).push(value)
    else if (sameNameBefore(headers, i, name)) appendField(fields, name, value)
    else fields[name] = value
  }
  if (cookies) fields["Set-Cookie"] = mergedCookies(res, cookies)
  fields["Content-Length"] = String(Buffer.byteLength(body))
  // with headers set before (X-Powered-By), Node replaces them by name with these
  if (out.statusText) res.writeHead(out.status, out.statusText, fields)
  else res.writeHead(out.status, fields)
  res.end(body)
}

/** Adds `value` to the field named `name` in any case, making it a list of lines. */
function appendField(fields: Record<string, string | string[]>, name: string, value: string): void {
  const lower = name.toLowerCase()
  for (const key in fields) {
    if (key.toLowerCase() !== lower) continue
    const earlier = fields[key] ?? []
    fields[key] = Array.isArray(earlier) ? [...earlier, value] : [earlier, value]
    return
  }
}

/** Header by header through `setHeader` (repeated names appended): for a stream body and for answers without one. */
function writeEachHeader(res: ServerResponse, out: Outgoing): void {
  res.statusCode = out.status
  res.statusMessage = out.statusText
  let cookies: string[] | undefined
  const { headers } = out
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i] as readonly [string, string]
    if (isSetCookie(name)) (cookies ??= []).push(value)
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
