/**
 * Who is signed in on a request: `sessionUserId` reads the session cookie's user as it stands (for a
 * sign-out), `signedIn` reads the session the one canonical way first (expiry, revocation, refresh), as
 * the account endpoints need.
 */
import type { JWT } from "../../types.js"
import type { RequestContext } from "../http/context.js"
import { type OutCookie, readChunked } from "../http/cookies.js"
import { adapterOf } from "./adapter.js"
import { decodeSessionToken, sessionStrategy } from "./session.js"

/** The signed-in user of a request, with what identifies this session. */
export interface SignedIn {
  readonly userId: string
  /** Database strategy: the session token. */
  readonly token?: string
  /** JWT strategy: the session token's claims. */
  readonly payload?: JWT
  /** Cookies the session read wants set (a refresh). */
  readonly cookies: readonly OutCookie[]
}

/** The user id and session of the request's session cookie, unchecked beyond decoding; undefined when none. */
export async function sessionUserId(ctx: RequestContext): Promise<Omit<SignedIn, "cookies"> | undefined> {
  const { name } = ctx.cookies.sessionToken
  if (ctx.config.session.strategy === "database") {
    const token = ctx.req.cookies[name]
    const found = token ? await adapterOf(ctx)?.getSessionAndUser(token) : null
    return found && token ? { userId: String(found.user.id), token } : undefined
  }
  const raw = readChunked(ctx.req.cookies, name)
  const payload = raw ? (await decodeSessionToken(ctx, raw, name))?.payload : undefined
  const sub = payload?.sub
  return payload && typeof sub === "string" && sub !== "" ? { userId: sub, payload } : undefined
}

/**
 * The request's signed-in user after a full session read (an expired, revoked or tampered session is
 * nobody); `cookies` then holds the read's clears. Never throws: a failure reads as nobody.
 */
export async function signedIn(
  ctx: RequestContext,
): Promise<SignedIn | { readonly userId?: undefined; readonly cookies: readonly OutCookie[] }> {
  const read = await sessionStrategy(ctx).read(ctx)
  if (!read.body) return { cookies: read.cookies }
  try {
    const who = await sessionUserId(ctx)
    return who ? { ...who, cookies: read.cookies } : { cookies: read.cookies }
  } catch {
    return { cookies: read.cookies }
  }
}
