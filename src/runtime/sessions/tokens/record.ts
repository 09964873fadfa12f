/**
 * A user's current token set with one provider, kept in the server-state port (`session.providerTokens`):
 * one JSON value per user and provider, `ptok:{userId}:<provider>`, next to its refresh lock
 * `ptok-lock:{userId}:<provider>` and the user's "needs sign-in again" flags `ptok-error:{userId}` (a
 * record of fields, one per provider). All three share the `{userId}` tag: one Redis Cluster slot.
 *
 * Written at every OAuth/OIDC sign-in (a new sign-in also clears that provider's flag) and after every
 * refresh; each write keeps the record as long as the longest session may live.
 *
 * The sessions a sign-in with the provider started hold the record (`ptok-holders:{userId}:<provider>`,
 * one field per session reference, ./session-ref.ts, valued with the session's latest possible end).
 * Signing out releases the session's hold; the last live holder's sign-out deletes the token set and
 * the flag, so no refresh token outlives the sessions it was kept for.
 */
import type { ResolvedConfig } from "../../../types/resolved.js"
import { stateKey } from "../../limits/server-state.js"

/** The token set as stored. `expires_at` is in seconds since the epoch, as on an Auth.js account row. */
export interface TokenRecord {
  readonly providerAccountId: string
  readonly access_token: string
  readonly token_type?: string
  readonly scope?: string
  readonly refresh_token?: string
  readonly expires_at?: number
  /** When a refresh got this token, in seconds since the epoch (absent for the sign-in's token). */
  readonly received_at?: number
}

/** What a sign-in hands over: the account the flow produced (its token fields included). */
export interface SignedInAccount {
  readonly provider: string
  readonly providerAccountId: string
  readonly type: string
  readonly [field: string]: unknown
}

/** The key of a user's "needs sign-in again" flags, one field per provider. */
const errorsKey = (userId: string) => stateKey("ptok-error", userId)

/** The keys of one user's tokens with one provider. */
export function tokenKeys(userId: string, providerId: string): { record: string; lock: string; errors: string; holders: string } {
  return {
    record: stateKey("ptok", userId, providerId),
    lock: stateKey("ptok-lock", userId, providerId),
    errors: errorsKey(userId),
    holders: stateKey("ptok-holders", userId, providerId),
  }
}

/** How long a record is kept after each write: as long as the longest session may live. */
export function keepMs(config: ResolvedConfig): number {
  return Math.max(config.jwt.maxAge, config.session.maxAge) * 1000
}

const optionalString = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)

/** The record of an account's token fields, or null without an access token. */
export function recordOf(account: SignedInAccount): TokenRecord | null {
  const access = optionalString(account.access_token)
  if (!access) return null
  const expiresAt = typeof account.expires_at === "number" && Number.isFinite(account.expires_at) ? account.expires_at : undefined
  return withoutUndefined({
    providerAccountId: account.providerAccountId,
    access_token: access,
    token_type: optionalString(account.token_type),
    scope: optionalString(account.scope),
    refresh_token: optionalString(account.refresh_token),
    expires_at: expiresAt,
  })
}

/** `value` without its undefined fields (so a stored record holds only what the provider sent). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

/** Parses a stored record; anything unexpected reads as no record. */
export function parseRecord(text: string | null): TokenRecord | null {
  if (text === null) return null
  try {
    const value = JSON.parse(text) as Partial<TokenRecord>
    return typeof value.access_token === "string" && typeof value.providerAccountId === "string" ? (value as TokenRecord) : null
  } catch {
    return null
  }
}

/**
 * At an OAuth/OIDC sign-in with `session.providerTokens`: stores the account's token set for the user
 * (replacing the one before) and clears the provider's "needs sign-in again" flag.
 */
export async function keepProviderTokens(
  config: ResolvedConfig,
  userId: string | undefined,
  account: SignedInAccount | null,
): Promise<void> {
  if (!config.providerTokens || !userId || !account || (account.type !== "oauth" && account.type !== "oidc")) return
  const record = recordOf(account)
  if (!record) return
  const keys = tokenKeys(userId, account.provider)
  await config.serverState.set(keys.record, JSON.stringify(record), keepMs(config))
  await config.serverState.deleteFields(keys.errors, [account.provider])
}

/** Forgets the user's tokens with `providerId` and its flag (the account was unlinked). */
export async function forgetProviderTokens(config: ResolvedConfig, userId: string, providerId: string): Promise<void> {
  const keys = tokenKeys(userId, providerId)
  await config.serverState.reset(keys.record)
  await config.serverState.reset(keys.holders)
  await config.serverState.deleteFields(keys.errors, [providerId])
}

/** Notes that the session `ref`, just issued by a sign-in with `providerId`, holds the user's token set. */
export async function holdProviderTokens(
  config: ResolvedConfig,
  userId: string,
  providerId: string,
  ref: string,
  now: number,
): Promise<void> {
  if (!config.providerTokens) return
  await config.serverState.setFields(tokenKeys(userId, providerId).holders, { [ref]: String(now + keepMs(config)) }, keepMs(config))
}

/** The session `to` takes over the holds of the session `from` (a re-issued database session). */
export async function transferProviderTokens(config: ResolvedConfig, userId: string, from: string, to: string): Promise<void> {
  if (!config.providerTokens) return
  for (const provider of config.providers.values()) {
    if (provider.type !== "oauth" && provider.type !== "oidc") continue
    const { holders } = tokenKeys(userId, provider.id)
    const until = (await config.serverState.getFields(holders))[from]
    if (until === undefined) continue
    await config.serverState.setFields(holders, { [to]: until }, keepMs(config))
    await config.serverState.deleteFields(holders, [from])
  }
}

/**
 * The session `ref` ended (signed out, or logged out by its provider session): it lets go of the token
 * sets it held, and a set no live session holds any more is deleted with its flag. A token set kept
 * before holders existed (no holder at all) is left to expire.
 */
export async function releaseProviderTokens(config: ResolvedConfig, userId: string, ref: string, now: number): Promise<void> {
  if (!config.providerTokens) return
  for (const provider of config.providers.values()) {
    if (provider.type !== "oauth" && provider.type !== "oidc") continue
    const keys = tokenKeys(userId, provider.id)
    const holders = await config.serverState.getFields(keys.holders)
    if (holders[ref] === undefined) continue
    await config.serverState.deleteFields(keys.holders, [ref])
    const others = Object.entries(holders).filter(([other, until]) => other !== ref && Number(until) > now)
    if (others.length > 0) continue
    await config.serverState.reset(keys.record)
    await config.serverState.deleteFields(keys.errors, [provider.id])
  }
}

/** Marks the user's account with `providerId` as needing sign-in again (the session shows the error). */
export async function markRefreshFailed(config: ResolvedConfig, userId: string, providerId: string): Promise<void> {
  await config.serverState.setFields(tokenKeys(userId, providerId).errors, { [providerId]: "RefreshTokenError" }, keepMs(config))
}

/**
 * The session's `error`: `"RefreshTokenError"` while some provider of the user needs sign-in again,
 * else undefined. Without `session.providerTokens` nothing is read. When the port cannot answer, the
 * session is shown without it (logged), as revocation does.
 */
export async function sessionTokenError(config: ResolvedConfig, userId: string | undefined): Promise<"RefreshTokenError" | undefined> {
  if (!config.providerTokens || !userId) return undefined
  try {
    const flags = await config.serverState.getFields(errorsKey(userId))
    return Object.keys(flags).length > 0 ? "RefreshTokenError" : undefined
  } catch (err) {
    config.logger.error(err instanceof Error ? err : new Error(String(err)))
    return undefined
  }
}
