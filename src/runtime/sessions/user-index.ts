/**
 * The per-user index of database sessions in the server-state port (Auth.js adapters store only a
 * session's token, user and expiry, and cannot list a user's sessions). One record per user,
 * `sessions:{userId}`, four fields per session, named by the session's public id:
 *
 * | field | value |
 * |---|---|
 * | `<id>:t` | the session token (server side only, as in the adapter; never shown) |
 * | `<id>:c` | created at (ms), written when the session is issued |
 * | `<id>:a` | the user agent of the last request seen (at most 256 characters) |
 * | `<id>:s` | last seen (ms), written at most once per `session.lastSeenInterval` per instance |
 * | `<id>:p`, `<id>:i`, `<id>:d` | an OIDC sign-in's provider, ID token (RP-initiated logout's `id_token_hint`) and the provider session's `sid` |
 *
 * The adapter stays the truth: listing drops (and forgets) entries whose session the adapter no longer
 * has. A session issued before the index existed (or lost with a memory port's restart) is indexed again
 * at its next read, with no creation time. The public id is a hash of the token: it names the session
 * and cannot be turned back into the token.
 */
import { sha256 } from "../crypto/digest.js"
import type { AdapterUser } from "../../adapters/types.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import type { RequestContext } from "../http/context.js"
import type { SafeAdapter } from "./adapter.js"
import { stateKey } from "../limits/server-state.js"

/** A session of a user as it may be shown to that user: no token. */
export interface SessionInfo {
  /** The session's public id (not its token): pass it to `revokeSession`. */
  readonly id: string
  /** The `User-Agent` of the last request seen, or null when unknown. */
  readonly userAgent: string | null
  /** When the session was issued (ISO 8601), or null when it predates the index. */
  readonly createdAt: string | null
  /** The last request seen (ISO 8601, accurate to `session.lastSeenInterval`), or null. */
  readonly lastSeenAt: string | null
  /** When the session expires unless used again (ISO 8601). */
  readonly expires: string
  /** True for the session of the request that asked (HTTP endpoint and `listSessions` with a request). */
  readonly current?: boolean
}

const USER_AGENT_MAX = 256
const TOUCHED_MAX = 10_000

/** The public id of a session token: a one-way hash, 22 base64url characters. */
export function sessionId(token: string): string {
  return sha256(`authchart-session\u0000${token}`, "base64url").slice(0, 22)
}

const indexKey = (userId: string) => stateKey("sessions", userId)
const fieldsOf = (id: string) => [`${id}:t`, `${id}:c`, `${id}:a`, `${id}:s`, `${id}:p`, `${id}:i`, `${id}:d`]
const keepFor = (config: ResolvedConfig) => config.session.maxAge * 1000

/** Sessions this instance recorded as seen, and when (bounded; oldest out first). */
const touched = new WeakMap<ResolvedConfig, Map<string, number>>()

function touchedOf(config: ResolvedConfig): Map<string, number> {
  let map = touched.get(config)
  if (!map) touched.set(config, (map = new Map()))
  return map
}

function markSeen(config: ResolvedConfig, id: string, now: number): void {
  const map = touchedOf(config)
  map.delete(id)
  if (map.size >= TOUCHED_MAX) map.delete(map.keys().next().value as string)
  map.set(id, now)
}

function userAgentOf(ctx: RequestContext): string | undefined {
  const value = ctx.req.headers.get("user-agent")
  return value ? value.slice(0, USER_AGENT_MAX) : undefined
}

/** The fields a request writes for a session: token, user agent (when sent), last seen. */
function seenFields(ctx: RequestContext, id: string, token: string): Record<string, string> {
  const agent = userAgentOf(ctx)
  return { [`${id}:t`]: token, ...(agent ? { [`${id}:a`]: agent } : {}), [`${id}:s`]: String(ctx.now) }
}

/** What a sign-in keeps with its session beyond the index's own fields: the ID token it got, by letter. */
export interface SessionExtras {
  /** The OIDC provider of the sign-in. */
  readonly p?: string
  /** Its ID token. */
  readonly i?: string
  /** The provider session's `sid`, when the ID token had one. */
  readonly d?: string
}

/**
 * Indexes a session just issued (at sign-in), with its creation time and `extras`. `createdAt` and
 * `extras` carry a re-issued session's over.
 */
export async function recordSession(
  ctx: RequestContext,
  userId: string,
  token: string,
  createdAt = ctx.now,
  extras: SessionExtras = {},
): Promise<void> {
  const id = sessionId(token)
  const kept = Object.fromEntries(Object.entries(extras).map(([letter, value]) => [`${id}:${letter}`, value as string]))
  const fields = { ...seenFields(ctx, id, token), [`${id}:c`]: String(createdAt), ...kept }
  await ctx.config.serverState.setFields(indexKey(userId), fields, keepFor(ctx.config))
  markSeen(ctx.config, id, ctx.now)
}

/**
 * Notes that a session was used: at most one write per `session.lastSeenInterval` per instance (never
 * a write per request). A failure is logged; the request goes on.
 */
export async function touchSession(ctx: RequestContext, userId: string, token: string): Promise<void> {
  const { config } = ctx
  const id = sessionId(token)
  const last = touchedOf(config).get(id)
  if (last !== undefined && ctx.now - last < config.session.lastSeenMs) return
  markSeen(config, id, ctx.now)
  try {
    await config.serverState.setFields(indexKey(userId), seenFields(ctx, id, token), keepFor(config))
  } catch (err) {
    config.logger.debug("session-index", { failed: "touch", err: String(err) })
  }
}

/** Forgets one session of a user (by public id). */
export async function forgetSession(config: ResolvedConfig, userId: string, id: string): Promise<void> {
  touchedOf(config).delete(id)
  await config.serverState.deleteFields(indexKey(userId), fieldsOf(id))
}

/** Forgets every session of a user (their sessions were all ended). */
export async function forgetUserSessions(config: ResolvedConfig, userId: string): Promise<void> {
  await config.serverState.reset(indexKey(userId))
}

/** An indexed session, as stored (its token included: server side only). */
export interface Indexed {
  readonly id: string
  readonly token: string
  readonly fields: Readonly<Record<string, string>>
}

/** The user's indexed sessions as stored (tokens included: server side only). */
export async function indexedSessions(config: ResolvedConfig, userId: string): Promise<Indexed[]> {
  const fields = await config.serverState.getFields(indexKey(userId))
  const out: Indexed[] = []
  for (const [name, token] of Object.entries(fields)) {
    if (!name.endsWith(":t")) continue
    const id = name.slice(0, -2)
    out.push({ id, token, fields })
  }
  return out
}

/** What the index keeps of the sign-in of the user's session `id` (its ID token and provider). */
export function extrasOf(entry: Indexed): SessionExtras {
  const p = entry.fields[`${entry.id}:p`]
  const i = entry.fields[`${entry.id}:i`]
  const d = entry.fields[`${entry.id}:d`]
  return p !== undefined && i !== undefined ? { p, i, ...(d !== undefined ? { d } : {}) } : {}
}

/** The token of the user's session `id`, when the index knows it. */
export async function tokenOfSession(config: ResolvedConfig, userId: string, id: string): Promise<string | undefined> {
  return (await indexedSessions(config, userId)).find((s) => s.id === id)?.token
}

const isoOf = (value: string | undefined) => {
  const ms = value === undefined ? Number.NaN : Number(value)
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null
}

/**
 * The user's live sessions, newest first, checked against the adapter: an entry whose session is gone,
 * expired or belongs to someone else is dropped from the answer and from the index.
 */
export async function liveSessions(config: ResolvedConfig, adapter: SafeAdapter, user: Pick<AdapterUser, "id">, now: number) {
  const userId = String(user.id)
  const out: SessionInfo[] = []
  for (const entry of await indexedSessions(config, userId)) {
    const found = await adapter.getSessionAndUser(entry.token)
    if (!found || String(found.user.id) !== userId || found.session.expires.getTime() <= now) {
      await forgetSession(config, userId, entry.id)
      continue
    }
    out.push({
      id: entry.id,
      userAgent: entry.fields[`${entry.id}:a`] ?? null,
      createdAt: isoOf(entry.fields[`${entry.id}:c`]),
      lastSeenAt: isoOf(entry.fields[`${entry.id}:s`]),
      expires: found.session.expires.toISOString(),
    })
  }
  return out.sort((a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? ""))
}
