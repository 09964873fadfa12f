/**
 * A valid access token for a user's account with a provider, refreshed when it expires within the margin.
 *
 * Single flight per account: concurrent calls in one instance share one run (per resolved config), and
 * instances share the server-state port's lock `ptok-lock:{userId}:<provider>`. The lock is taken for
 * {@link REFRESH_LOCK_MS} and renewed by its holder every quarter of that for as long as the refresh runs,
 * however long the provider takes, so no one else may take over while a refresh token is being spent;
 * the rotated token set is written only while the lock is still held (`setIfLocked`). The others poll
 * the record, each wait bounded by `refreshWait`, and one whose wait ends reads the record a last time
 * (taking what the holder wrote) rather than refreshing itself; a lock left by a crashed instance stops
 * being renewed, expires and is taken over.
 */
import { randomUUID } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { AccessTokenUnavailable, RefreshTokenError } from "../../../errors.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { ResolvedConfig } from "../../../types/resolved.js"
import { DEFAULT_TIMEOUT_MS } from "../../oauth/server.js"
import { keepMs, markRefreshFailed, parseRecord, type TokenRecord, tokenKeys } from "./record.js"
import { refreshAtProvider } from "./refresh.js"

/** The refresh lock's lifetime; its holder renews it every quarter of that while the refresh runs. */
export const REFRESH_LOCK_MS = 2_000
const RENEW_EVERY_MS = REFRESH_LOCK_MS / 4
/** The default wait for another instance's refresh: the provider's request timeout and this much more. */
const WAIT_SLACK_MS = 5_000
const FIRST_PAUSE_MS = 20
const LONGEST_PAUSE_MS = 250

type Keys = ReturnType<typeof tokenKeys>

interface Account {
  readonly config: ResolvedConfig
  readonly provider: OAuthConfig
  readonly userId: string
  readonly keys: Keys
}

const flights = new WeakMap<ResolvedConfig, Map<string, Promise<string | null>>>()

function flightsOf(config: ResolvedConfig): Map<string, Promise<string | null>> {
  let map = flights.get(config)
  if (!map) flights.set(config, (map = new Map()))
  return map
}

/**
 * The OAuth/OIDC provider `providerId` of a config that keeps provider tokens; a TypeError (an app
 * mistake) for anything else.
 */
export function tokenProvider(config: ResolvedConfig, providerId: string): OAuthConfig {
  if (!config.providerTokens) throw new TypeError("getAccessToken: provider tokens are not kept; set session.providerTokens.")
  const provider = config.providers.get(providerId)
  if (!provider || (provider.type !== "oauth" && provider.type !== "oidc")) {
    throw new TypeError(`getAccessToken: "${providerId}" is not an OAuth or OIDC provider of this config.`)
  }
  return provider.config
}

/** A port call; its failure is `AccessTokenUnavailable` (the tokens stand). */
async function viaPort<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (err) {
    throw new AccessTokenUnavailable("The server-state store could not answer.", { err })
  }
}

const expiresAtMs = (record: TokenRecord) => (record.expires_at === undefined ? Number.POSITIVE_INFINITY : record.expires_at * 1000)

/**
 * Valid for longer than the margin (a token without `expires_at` never expires). For a refreshed token
 * the margin is at most half its lifetime, so a provider whose tokens live shorter than the margin does
 * not get a refresh at every call.
 */
function fresh(config: ResolvedConfig, record: TokenRecord): boolean {
  const expires = expiresAtMs(record)
  const lifetime = record.received_at === undefined ? Number.POSITIVE_INFINITY : expires - record.received_at * 1000
  return expires - Math.min(config.providerTokens?.refreshMarginMs ?? 0, lifetime / 2) > Date.now()
}

/** Another run replaced `seen` with a token that has not expired: take it, whatever the margin. */
function replaced(record: TokenRecord, seen: TokenRecord): boolean {
  return record.access_token !== seen.access_token && expiresAtMs(record) > Date.now()
}

async function read(account: Account): Promise<TokenRecord | null> {
  return parseRecord(await viaPort(account.config.serverState.get(account.keys.record)))
}

/** Marks the account as needing sign-in again, then throws `error`. */
async function needsSignIn(account: Account, error: RefreshTokenError): Promise<never> {
  await viaPort(markRefreshFailed(account.config, account.userId, account.provider.id))
  throw error
}

const noRefreshToken = (account: Account) =>
  new RefreshTokenError("The access token expired and there is no refresh token.", { provider: account.provider.id })

/** Under the lock: read again, refresh unless someone just did, store the result while still holding it. */
async function refreshHeld(account: Account, owner: string, seen: TokenRecord): Promise<string | null> {
  const { config, keys } = account
  const current = await read(account)
  if (!current) return null
  if (fresh(config, current) || replaced(current, seen)) return current.access_token
  if (!current.refresh_token) return needsSignIn(account, noRefreshToken(account))
  let next: TokenRecord
  try {
    next = await refreshAtProvider(config, account.provider, current, Date.now())
  } catch (err) {
    if (!(err instanceof RefreshTokenError)) throw err
    // the refresh token is spent: keep the record without it, so no one tries it again
    const { refresh_token: _spent, ...rest } = current
    await viaPort(config.serverState.setIfLocked(keys.lock, owner, keys.record, JSON.stringify(rest), keepMs(config)))
    return needsSignIn(account, err)
  }
  const stored = await viaPort(config.serverState.setIfLocked(keys.lock, owner, keys.record, JSON.stringify(next), keepMs(config)))
  if (!stored)
    throw new AccessTokenUnavailable("The refresh outlived its lock; its tokens were not stored.", { provider: account.provider.id })
  return next.access_token
}

/**
 * Renews the held lock every quarter of its lifetime until the returned function is called: a renewal
 * is `setIfLocked` on the lock itself, so it extends only a lock this owner still holds. A failed one is
 * tried again at the next tick while the lock still has time; the write of the result checks the lock.
 */
function keepLock(account: Account, owner: string): () => void {
  const { serverState } = account.config
  const { lock } = account.keys
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const renew = async () => {
    await serverState.setIfLocked(lock, owner, lock, owner, REFRESH_LOCK_MS).catch(() => false)
    if (!stopped) timer = setTimeout(renew, RENEW_EVERY_MS).unref()
  }
  timer = setTimeout(renew, RENEW_EVERY_MS).unref()
  return () => {
    stopped = true
    clearTimeout(timer)
  }
}

/** What a waiter takes from the record: the token another run stored, the end of the account, or nothing yet. */
async function storedByOther(account: Account, seen: TokenRecord): Promise<{ token: string | null } | undefined> {
  const current = await read(account)
  if (!current) return { token: null }
  if (fresh(account.config, current) || replaced(current, seen)) return { token: current.access_token }
  if (!current.refresh_token) throw new RefreshTokenError("The provider refused the refresh token.", { provider: account.provider.id })
  return undefined
}

/** Takes the lock and refreshes, or waits (bounded) for the instance that holds it. */
async function refreshUnderLock(account: Account, seen: TokenRecord): Promise<string | null> {
  const { config, keys } = account
  const owner = randomUUID()
  // a monotonic clock: a wall clock that jumps must not stretch (or cut) the wait
  const wait = config.providerTokens?.refreshWaitMs ?? (account.provider.timeout ?? DEFAULT_TIMEOUT_MS) + WAIT_SLACK_MS
  const deadline = performance.now() + wait
  let pause = FIRST_PAUSE_MS
  for (;;) {
    if (await viaPort(config.serverState.lock(keys.lock, owner, REFRESH_LOCK_MS))) {
      const release = keepLock(account, owner)
      try {
        return await refreshHeld(account, owner, seen)
      } finally {
        release()
        await config.serverState.unlock(keys.lock, owner).catch((err: unknown) => config.logger.error(new AccessTokenUnavailable({ err })))
      }
    }
    const left = deadline - performance.now()
    if (left > 0) await sleep(Math.min(pause, left))
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS)
    const stored = await storedByOther(account, seen)
    if (stored) return stored.token
    // the wait is over: what the holder wrote was read just now; never a second refresh past the lock
    if (left <= 0) throw new AccessTokenUnavailable("Another refresh of this account took longer than refreshWait.")
  }
}

async function currentToken(account: Account): Promise<string | null> {
  const record = await read(account)
  if (!record) return null
  if (fresh(account.config, record)) return record.access_token
  if (!record.refresh_token) return needsSignIn(account, noRefreshToken(account))
  return refreshUnderLock(account, record)
}

/**
 * The access token of `userId`'s account with `providerId`, refreshed first when it expires within the
 * margin; null when no tokens are kept for that account (never signed in with it, or the record is
 * gone). Throws `RefreshTokenError` (sign in again) or `AccessTokenUnavailable` (try later); a
 * TypeError for app mistakes (provider tokens not enabled, not an OAuth provider).
 */
export async function accessTokenOf(config: ResolvedConfig, userId: string, providerId: string): Promise<string | null> {
  const account: Account = { config, provider: tokenProvider(config, providerId), userId, keys: tokenKeys(userId, providerId) }
  const inFlight = flightsOf(config)
  const running = inFlight.get(account.keys.record)
  if (running) return running
  const flight = currentToken(account)
    .catch((err: unknown) => {
      // logged once per run, however many calls share it; the callers get the error
      config.logger.error(err instanceof Error ? err : new AccessTokenUnavailable({ err }))
      throw err
    })
    .finally(() => inFlight.delete(account.keys.record))
  inFlight.set(account.keys.record, flight)
  return flight
}
