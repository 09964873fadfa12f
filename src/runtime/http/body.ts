/**
 * The one request-body parser, for every integration: a urlencoded or JSON POST body as a record of
 * fields. The integrations only read the bytes (Express: the stream, bounded; `Auth`: the web Request).
 */
import { UnknownAction } from "../../errors.js"

/** The body formats the auth routes read; anything else is no body. */
export type BodyKind = "form" | "json"

/** The kind of body a `Content-Type` announces, or undefined for one the routes do not read. */
export function bodyKind(contentType: string | null | undefined): BodyKind | undefined {
  if (!contentType) return undefined
  if (contentType.includes("application/x-www-form-urlencoded")) return "form"
  if (contentType.includes("application/json")) return "json"
  return undefined
}

/**
 * Parses a body of `kind`. A form is read leniently (as `URLSearchParams` does); an empty JSON body is no
 * body; JSON that does not parse, or is not an object, throws `UnknownAction` (→ 400 "Bad request.").
 */
export function parseBody(kind: BodyKind, text: string): Record<string, unknown> | undefined {
  if (kind === "form") return parseForm(text)
  if (text.trim() === "") return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw new UnknownAction("The JSON body could not be parsed.", { err })
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UnknownAction("The JSON body must be an object.")
  }
  return parsed as Record<string, unknown>
}

/**
 * A form body's fields, exactly as `Object.fromEntries(new URLSearchParams(text))` gives them (the last
 * of a repeated name wins, `+` is a space, a name without `=` has the value ""), without building the
 * URLSearchParams and its iterator. Escapes are decoded by `decodeURIComponent` only when it decodes all
 * of them; a malformed escape, escaped bytes that are not UTF-8 or a lone surrogate in the text go to
 * URLSearchParams itself, which keeps the first and replaces the others with U+FFFD.
 */
export function parseForm(text: string): Record<string, string> {
  if (LONE_SURROGATE.test(text)) return Object.fromEntries(new URLSearchParams(text))
  const out: Record<string, string> = {}
  // the next "=" at or after `start`, found again only once passed: one scan of the text in all
  let eq = -1
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf("&", start)
    if (end === -1) end = text.length
    if (end > start) {
      if (eq !== Number.POSITIVE_INFINITY && eq < start) {
        eq = text.indexOf("=", start)
        if (eq === -1) eq = Number.POSITIVE_INFINITY
      }
      const cut = eq < end ? eq : end
      const name = decodedPart(text.slice(start, cut))
      const value = cut === end ? "" : decodedPart(text.slice(cut + 1, end))
      if (name === undefined || value === undefined) return Object.fromEntries(new URLSearchParams(text))
      // "__proto__" as an own field, as Object.fromEntries makes it (an assignment would set the prototype)
      if (name === "__proto__") Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true })
      else out[name] = value
    }
    start = end + 1
  }
  return out
}

/**
 * The first value of `name` in a query or form text, exactly as `new URLSearchParams(text).get(name)`
 * gives it (null when absent), without building the URLSearchParams: each pair is decoded on its own,
 * as URLSearchParams decodes it, and a pair `decodeURIComponent` refuses (or a lone surrogate in the text)
 * sends the whole lookup to URLSearchParams.
 */
export function formValue(text: string, name: string): string | null {
  if (LONE_SURROGATE.test(text)) return new URLSearchParams(text).get(name)
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf("&", start)
    if (end === -1) end = text.length
    if (end > start) {
      let cut = text.indexOf("=", start)
      if (cut === -1 || cut > end) cut = end
      const key = decodedPart(text.slice(start, cut))
      if (key === undefined) return new URLSearchParams(text).get(name)
      if (key === name) {
        const value = cut === end ? "" : decodedPart(text.slice(cut + 1, end))
        return value === undefined ? new URLSearchParams(text).get(name) : value
      }
    }
    start = end + 1
  }
  return null
}

/** With the `u` flag a class of surrogates matches only those not in a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** A name or value with `+` as a space and its escapes decoded; undefined when decodeURIComponent refuses it. */
function decodedPart(part: string): string | undefined {
  const spaced = part.includes("+") ? part.replaceAll("+", " ") : part
  if (!spaced.includes("%")) return spaced
  try {
    return decodeURIComponent(spaced)
  } catch {
    return undefined
  }
}
