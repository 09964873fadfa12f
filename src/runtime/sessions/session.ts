/**
 * Sessions behind one seam: read (`/session`, `getSession`), issue (end of every sign-in flow) and
 * destroy (sign-out). The JWT strategy lives here; the database strategy plugs into the same interface.
 *
 * JWT sessions are re-encrypted only when the `jwt` callback changed the token, the token is older than
 * `session.updateAge` (or half its `maxAge`, when that is shorter), or the client asked for an update;
 * `exp` and the cookie's `Expires` always agree.
 */
import { JWTSessionError, SignOutError } from "../../errors.js"
import type { JWT, Session, SessionCallbackParams } from "../../types.js"
import type { RequestContext } from "../http/context.js"
import { type OutCookie, readChunked, writeChunked } from "../http/cookies.js"
import { fireEvent } from "../config/events.js"
import { CLOCK_TOLERANCE, decryptJwt, encryptJwt, newestSecret } from "../crypto/sealed.js"
import { databaseStrategy } from "./database.js"
import { type SessionRead, type SessionStrategy, type SignInSubject, clearSession, sessionBody } from "./cookie.js"
import type { SafeAdapter } from "./adapter.js"
import type { AdapterUser } from "../../adapters/types.js"
import { extended } from "../config/plain-object.js"
import { isRevoked, tokenIssuedAt, uuidv7 } from "./revocation.js"
import { carryIdToken, keepIdToken } from "./logout/id-token.js"
import { carrySessionId, jwtSessionId, withNewSessionId } from "./session-ref.js"
import { sessionIssued, sessionEnded } from "./lifecycle.js"
import { sessionTokenError } from "./tokens/record.js"
import { carryAuthTime, jwtAuthTime, withAuthTime } from "./auth-time.js"

interface Encoded {
  readonly value: string
  readonly exp: number
}

interface Decoded {
  readonly payload: JWT
  /** The decrypted claims as JSON, to tell whether `jwt` changed them. */
  readonly plaintext: string
}

/** A verified token kept: its plaintext and its expiry. */
interface Verified {
  readonly plaintext: string
  readonly exp: number | undefined
}

/** Decodes a session JWT with the config's `jwt.decode` or the built-in one. Throws when invalid. */
export async function decodeSessionToken(ctx: RequestContext, token: string, salt: string): Promise<Decoded | null> {
  const { config } = ctx
  if (config.jwt.decode) {
    const payload = await config.jwt.decode({ token, salt, secret: [...config.secrets] })
    return payload ? { payload, plaintext: JSON.stringify(payload) } : null
  }
  const cache = verifiedTokens(config, salt)
  const hit = cache.get(token)
  if (hit && (hit.exp === undefined || (hit.exp + CLOCK_TOLERANCE) * 1000 > ctx.now)) {
    return { payload: JSON.parse(hit.plaintext) as JWT, plaintext: hit.plaintext }
  }
  cache.delete(token)
  // requests that bring the same token at once share one decryption (and so reach what follows together)
  const pending = decrypting(config, salt)
  let decrypted = pending.get(token)
  if (!decrypted) {
    decrypted = verify(token, config.secrets, salt, cache).finally(() => pending.delete(token))
    pending.set(token, decrypted)
  }
  const plaintext = await decrypted
  return { payload: JSON.parse(plaintext) as JWT, plaintext }
}

/** Decrypts and authenticates `token`, keeps its plaintext in `cache` and answers it. */
async function verify(token: string, secrets: readonly string[], salt: string, cache: Map<string, Verified>): Promise<string> {
  const payload = await decryptJwt(token, secrets, salt)
  const plaintext = JSON.stringify(payload)
  if (cache.size >= VERIFIED_TOKENS_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(token, { plaintext, exp: typeof payload.exp === "number" ? payload.exp : undefined })
  return plaintext
}

/**
 * Tokens already decrypted and authenticated, by exact token string (per config and salt): a session
 * cookie sent again skips the crypto. Only the plaintext is kept (each hit parses a fresh object), the
 * expiry is checked on every hit, and each map is bounded (oldest out first). Keyed by the token itself,
 * under its salt: no key string made per read.
 */
const VERIFIED_TOKENS_MAX = 1024
const verifiedByConfig = new WeakMap<object, Map<string, Map<string, Verified>>>()

/** Decryptions in flight, by exact token string (per config and salt); each is removed once it settles. */
const decryptingByConfig = new WeakMap<object, Map<string, Map<string, Promise<string>>>>()

function decrypting(config: object, salt: string): Map<string, Promise<string>> {
  let bySalt = decryptingByConfig.get(config)
  if (!bySalt) decryptingByConfig.set(config, (bySalt = new Map()))
  let pending = bySalt.get(salt)
  if (!pending) bySalt.set(salt, (pending = new Map()))
  return pending
}

function verifiedTokens(config: object, salt: string): Map<string, Verified> {
  let bySalt = verifiedByConfig.get(config)
  if (!bySalt) verifiedByConfig.set(config, (bySalt = new Map()))
  let cache = bySalt.get(salt)
  if (!cache) bySalt.set(salt, (cache = new Map()))
  return cache
}

/**
 * Whether the token to keep differs from the one decoded. The built-in `jwt` callback hands the decoded
 * object back untouched: nothing to compare. An app's own may change it in place, so its answer is
 * written out and compared.
 */
function rewritten(config: RequestContext["config"], token: JWT, decoded: Decoded): boolean {
  if (token === decoded.payload && !config.customJwt) return false
  return JSON.stringify(token) !== decoded.plaintext
}

/** Encodes a session token with fresh `iat`, `exp`, `jti` (the config's `jwt.encode` when it has one); returns it with its expiry. */
async function encodeToken(ctx: RequestContext, token: JWT, salt: string): Promise<Encoded> {
  const { config } = ctx
  const maxAge = config.jwt.maxAge
  const iat = Math.floor(ctx.now / 1000)
  const exp = iat + maxAge
  const { encode } = config.jwt
  if (encode) return { value: await encode({ token, salt, secret: [...config.secrets], maxAge }), exp }
  const claims = extended(token, { iat, exp, jti: uuidv7(ctx.now) })
  return { value: await encryptJwt(claims, newestSecret(config), salt), exp }
}

/** The session cookies for the `jwt` callback's token (cleared when it gave none), the session noted for its user. */
async function issueToken(ctx: RequestContext, subject: SignInSubject, token: JWT | null): Promise<OutCookie[]> {
  if (!token) return clearSession(ctx)
  // every sign-in is a proof of who the user is: its time goes with the new session
  const kept = withAuthTime(withNewSessionId(keepIdToken(ctx, token, subject.account)), ctx.now)
  const encoded = await encodeToken(ctx, kept, ctx.cookies.sessionToken.name)
  if (typeof kept.sub === "string" && kept.sub !== "") await sessionIssued(ctx, kept.sub, jwtSessionId(kept) as string, subject)
  return sessionCookies(ctx, encoded.value, encoded.exp)
}

function sessionCookies(ctx: RequestContext, value: string, exp: number): OutCookie[] {
  const { name, options } = ctx.cookies.sessionToken
  return writeChunked(ctx.req.cookies, name, value, extended(options, { expires: new Date(exp * 1000) }))
}

/**
 * The answer for a revoked session token (no session, cookies cleared), or null when it stands. When the
 * server-state port cannot answer, the session stands (logged): an outage of the shared store must not
 * sign every user out of a stateless session; revocations set before it apply again once it answers.
 */
async function revokedToken(ctx: RequestContext, payload: JWT, fresh: boolean): Promise<SessionRead | null> {
  if (typeof payload.sub !== "string" || payload.sub === "") return null
  try {
    if (!(await isRevoked(ctx, payload.sub, tokenIssuedAt(payload), fresh, jwtSessionId(payload)))) return null
  } catch (err) {
    ctx.config.logger.error(new JWTSessionError("Session revocation could not be checked; the session stands.", { err }))
    return null
  }
  ctx.config.logger.debug("session-revoked", { strategy: "jwt" })
  return { body: null, cookies: clearSession(ctx) }
}

/**
 * The request's JWT session again, with a fresh `iat`, `exp` and `jti`: after its user's other sessions
 * were revoked as of now, this one (issued now) still stands.
 */
export async function reissueJwt(ctx: RequestContext, payload: JWT): Promise<OutCookie[]> {
  const { name } = ctx.cookies.sessionToken
  const encoded = await encodeToken(ctx, payload, name)
  return sessionCookies(ctx, encoded.value, encoded.exp)
}

export const jwtStrategy: SessionStrategy = {
  async read(ctx, update) {
    const { config } = ctx
    const { name } = ctx.cookies.sessionToken
    const raw = readChunked(ctx.req.cookies, name)
    if (!raw) return { body: null, cookies: [] }
    let decoded: Decoded | null
    try {
      decoded = await decodeSessionToken(ctx, raw, name)
    } catch (err) {
      config.logger.error(new JWTSessionError("The session token could not be decoded.", { err }))
      return { body: null, cookies: clearSession(ctx) }
    }
    if (!decoded) return { body: null, cookies: clearSession(ctx) }
    const revoked = await revokedToken(ctx, decoded.payload, false)
    if (revoked) return revoked
    const returned = await config.callbacks.jwt(
      update ? { token: decoded.payload, trigger: "update", session: update.data } : { token: decoded.payload },
    )
    if (!returned) return { body: null, cookies: clearSession(ctx) }
    const token = carryAuthTime(decoded.payload, carrySessionId(decoded.payload, carryIdToken(decoded.payload, returned)))
    const iat = typeof token.iat === "number" ? token.iat : 0
    // re-issued by halfway through its life at the latest: with maxAge at or below updateAge an active
    // user's session would otherwise never slide (Auth.js re-issues a JWT session on every read)
    const refreshAge = Math.min(config.session.updateAge, Math.floor(config.jwt.maxAge / 2))
    const stale = iat + refreshAge <= Math.floor(ctx.now / 1000)
    const changed = update !== undefined || stale || rewritten(config, token, decoded)
    let exp = typeof token.exp === "number" ? token.exp : Math.floor(ctx.now / 1000) + config.jwt.maxAge
    let cookies: OutCookie[] = []
    if (changed) {
      const stale = await revokedToken(ctx, decoded.payload, true)
      if (stale) return stale
      const encoded = await encodeToken(ctx, token, name)
      exp = encoded.exp
      cookies = sessionCookies(ctx, encoded.value, exp)
    }
    const error = await sessionTokenError(config, token.sub)
    const user = { name: token.name, email: token.email, image: token.picture }
    // a token issued now expires, in Auth.js' answer, maxAge after this very millisecond; one issued
    // earlier (authchart re-issues at most once per updateAge) at its `exp`, whole seconds
    const issuedNow = changed && exp === Math.floor(ctx.now / 1000) + config.jwt.maxAge
    const expires = new Date(issuedNow ? ctx.now + config.jwt.maxAge * 1000 : exp * 1000).toISOString()
    const session = sessionBody(user, expires, error, jwtAuthTime(token))
    // Auth.js' parameter type merges both strategies' arguments; this strategy passes its own half.
    const params = update ? { session, token, trigger: "update" as const, newSession: update.data } : { session, token }
    const body = (await config.callbacks.session(params as SessionCallbackParams)) as Session
    await fireEvent(ctx, "session", { session: body, token })
    return token.sub ? { body, cookies, userId: token.sub } : { body, cookies }
  },

  async issue(ctx, subject) {
    const { user, account, profile, isNewUser } = subject
    const initial: JWT = { name: user.name, email: user.email, picture: user.image, sub: user.id }
    const token = await ctx.config.callbacks.jwt({
      token: initial,
      user,
      account,
      ...(profile ? { profile } : {}),
      ...(isNewUser !== undefined ? { isNewUser } : {}),
      trigger: isNewUser ? "signUp" : "signIn",
    })
    return issueToken(ctx, subject, token)
  },

  async destroy(ctx) {
    const { name } = ctx.cookies.sessionToken
    const raw = readChunked(ctx.req.cookies, name)
    if (!raw) return []
    try {
      const decoded = await decodeSessionToken(ctx, raw, name)
      const ref = jwtSessionId(decoded?.payload)
      const sub = decoded?.payload.sub
      if (ref && typeof sub === "string" && sub !== "") await sessionEnded(ctx.config, sub, ref, ctx.now)
      await fireEvent(ctx, "signOut", { token: decoded?.payload ?? null })
    } catch (err) {
      ctx.config.logger.error(new SignOutError("The session could not be read at sign-out.", { err }))
    }
    return clearSession(ctx)
  },
}

/** The strategy of a request's config. */
export function sessionStrategy(ctx: RequestContext): SessionStrategy {
  return ctx.config.session.strategy === "database" ? databaseStrategy : jwtStrategy
}

/**
 * The user of the request's current session, if any (errors mean "nobody").
 * @example const signedIn = await currentUser(ctx, adapterOf(ctx)) // link a new passkey to them
 */
export async function currentUser(ctx: RequestContext, adapter: SafeAdapter): Promise<AdapterUser | null> {
  const { name } = ctx.cookies.sessionToken
  const raw = readChunked(ctx.req.cookies, name)
  if (!raw) return null
  try {
    if (ctx.config.session.strategy === "database") return (await adapter.getSessionAndUser(raw))?.user ?? null
    const token = await decodeSessionToken(ctx, raw, name)
    return token?.payload.sub ? await adapter.getUser(token.payload.sub) : null
  } catch {
    return null
  }
}
