/**
 * Double-submit CSRF protection, cookie format of Auth.js (`token|sha256(token + secret)`). The hash is
 * written with the newest secret and checked against every secret (and against the comma-joined list
 * Auth.js used), so rotating the secret invalidates no form.
 */
import { constantTimeEqual, sha256 } from "../crypto/digest.js"
import { randomBytes } from "../crypto/random.js"
import type { OutCookie } from "./cookies.js"
import type { RequestContext } from "./context.js"

export interface CsrfState {
  /** The token to put into forms. */
  readonly token: string
  /** A new cookie to set when the request had none or a bad one. */
  readonly cookie?: OutCookie
  /** True when this POST carried the cookie's token in its body `csrfToken`. */
  readonly verified: boolean
}

/** Cookie values already checked, per secrets list: a browser sends its CSRF cookie with every request. */
const VERIFIED_MAX = 1024
const verified = new WeakMap<readonly string[], Map<string, string>>()

function validToken(value: string | undefined, secrets: readonly string[]): string | undefined {
  if (!value) return undefined
  let seen = verified.get(secrets)
  const hit = seen?.get(value)
  if (hit !== undefined) return hit
  const bar = value.indexOf("|")
  if (bar <= 0) return undefined
  const token = value.slice(0, bar)
  const hash = value.slice(bar + 1)
  const candidates = secrets.length > 1 ? [...secrets, secrets.join(",")] : secrets
  if (!candidates.some((secret) => constantTimeEqual(sha256(`${token}${secret}`, "hex"), hash))) return undefined
  if (!seen) verified.set(secrets, (seen = new Map()))
  if (seen.size >= VERIFIED_MAX) seen.delete(seen.keys().next().value as string)
  seen.set(value, token)
  return token
}

/** Reads (or mints) the CSRF token of a request and tells whether the POST body proved it. */
export function csrfState(ctx: RequestContext): CsrfState {
  const { name, options } = ctx.cookies.csrfToken
  const secrets = ctx.config.secrets
  const existing = validToken(ctx.req.cookies[name], secrets)
  if (existing) {
    const sent = ctx.req.body?.csrfToken
    const verified = ctx.req.method === "POST" && typeof sent === "string" && constantTimeEqual(sent, existing)
    return { token: existing, verified: verified || ctx.config.skipCSRFCheck }
  }
  const token = randomBytes(32).toString("hex")
  const value = `${token}|${sha256(`${token}${secrets[0] ?? ""}`, "hex")}`
  return { token, cookie: { name, value, options }, verified: ctx.config.skipCSRFCheck }
}
