/**
 * Request bodies for the Express integration: the app's own parsers' result when they ran, otherwise
 * the stream read here (bounded) as urlencoded or JSON. Other content types give no body.
 */
import type { IncomingMessage } from "node:http"
import { UnknownAction } from "../errors.js"

/** Bodies larger than this are refused: auth forms are small. */
export const MAX_BODY_BYTES = 1024 * 1024

function readStream(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        reject(new UnknownAction("The request body is too large."))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", (err) => reject(new UnknownAction("The request body could not be read.", { err })))
  })
}

/** The parsed body of a POST. Throws `UnknownAction` (→ 400) on malformed JSON or an oversized body. */
export async function readBody(
  req: IncomingMessage & { body?: unknown; _body?: boolean },
): Promise<Record<string, unknown> | undefined> {
  if (req._body || (req.body !== undefined && req.readableEnded)) {
    const body = req.body
    return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
  }
  const type = req.headers["content-type"] ?? ""
  const isJson = type.includes("application/json")
  const isForm = type.includes("application/x-www-form-urlencoded")
  if (!isJson && !isForm) return undefined
  const text = await readStream(req, MAX_BODY_BYTES)
  if (isForm) return Object.fromEntries(new URLSearchParams(text))
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
