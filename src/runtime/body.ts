/**
 * The one request-body parser, for every integration: a urlencoded or JSON POST body as a record of
 * fields. The integrations only read the bytes (Express: the stream, bounded; `Auth`: the web Request).
 */
import { UnknownAction } from "../errors.js"

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
  if (kind === "form") return Object.fromEntries(new URLSearchParams(text))
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
