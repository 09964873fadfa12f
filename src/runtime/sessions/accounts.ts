/**
 * The provider accounts linked to a user, and unlinking one. Auth.js adapters cannot list a user's
 * accounts, so every OAuth/OIDC sign-in and link records its account in the server-state port
 * (`accounts:{userId}`, one field per account); the adapter stays the truth (an entry whose account it
 * no longer links to the user is dropped). An account linked before the index existed is listed again
 * after its next sign-in.
 *
 * The unlink guard: the user must keep a way to sign in after the unlink: another linked account, a
 * passkey (with a WebAuthn provider configured), their email address (with an email provider
 * configured), or what the app's `accounts.hasOtherSignIn(user)` vouches for (a password its
 * credentials provider checks). Otherwise `LastSignInMethod`. One unlink per user at a time, across
 * instances (a claim in the port), so two concurrent unlinks cannot both pass the guard.
 */
import { AccountNotFound, LastSignInMethod, MissingAdapter } from "../../errors.js"
import type { AdapterAccount, AdapterUser } from "../../adapters/types.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { type SafeAdapter, safeAdapter } from "./adapter.js"
import type { Adapter } from "../../adapters/types.js"
import { fireEvent } from "../config/events.js"
import { stateKey } from "../limits/server-state.js"
import { forgetProviderTokens } from "./tokens/record.js"

/** A provider account linked to a user, as shown to that user. */
export interface LinkedAccount {
  /** The provider id (as in `/auth/signin/<provider>`). */
  readonly provider: string
  /** The provider's display name, or its id when it is no longer configured. */
  readonly name: string
  readonly type: AdapterAccount["type"]
  /** When authchart saw it linked or used first (ISO 8601), or null. */
  readonly linkedAt: string | null
}

interface IndexedAccount extends LinkedAccount {
  readonly providerAccountId: string
  readonly field: string
}

const ACCOUNT_TYPES: ReadonlySet<string> = new Set(["oauth", "oidc"])
const UNLINK_LOCK_MS = 10_000
const LOCK_ATTEMPTS = 40
const LOCK_RETRY_MS = 50
const indexKey = (userId: string) => stateKey("accounts", userId)
const fieldOf = (provider: string, providerAccountId: string) => `${encodeURIComponent(provider)}:${encodeURIComponent(providerAccountId)}`

/** Records an OAuth/OIDC account of a user (at sign-in and at linking); keeps the first time seen. */
export async function recordAccount(
  config: ResolvedConfig,
  userId: string,
  account: Pick<AdapterAccount, "provider" | "providerAccountId" | "type">,
  now: number,
) {
  if (!ACCOUNT_TYPES.has(account.type)) return
  const key = indexKey(userId)
  const field = fieldOf(account.provider, String(account.providerAccountId))
  const known = await config.serverState.getFields(key)
  if (known[field] !== undefined) return
  // an index entry lives as long as the longest session could, and is refreshed at each sign-in
  const keep = Math.max(config.session.maxAge, config.jwt.maxAge) * 1000
  await config.serverState.setFields(key, { [field]: JSON.stringify({ type: account.type, at: now }) }, keep)
}

function parseEntry(field: string, value: string): Omit<IndexedAccount, "name"> | undefined {
  const [provider, providerAccountId, ...rest] = field.split(":")
  if (!provider || providerAccountId === undefined || rest.length > 0) return undefined
  try {
    const { type, at } = JSON.parse(value) as { type?: unknown; at?: unknown }
    if (typeof type !== "string" || !ACCOUNT_TYPES.has(type)) return undefined
    const linkedAt = typeof at === "number" && Number.isFinite(at) ? new Date(at).toISOString() : null
    const decoded = { provider: decodeURIComponent(provider), providerAccountId: decodeURIComponent(providerAccountId) }
    return { ...decoded, type: type as AdapterAccount["type"], linkedAt, field }
  } catch {
    return undefined
  }
}

/** The user's linked accounts as indexed and confirmed by the adapter (stale entries are forgotten). */
async function indexedAccounts(config: ResolvedConfig, adapter: SafeAdapter, userId: string): Promise<IndexedAccount[]> {
  const key = indexKey(userId)
  const out: IndexedAccount[] = []
  const stale: string[] = []
  for (const [field, value] of Object.entries(await config.serverState.getFields(key))) {
    const entry = parseEntry(field, value)
    const owner = entry ? await adapter.getUserByAccount({ provider: entry.provider, providerAccountId: entry.providerAccountId }) : null
    if (!entry || !owner || String(owner.id) !== userId) {
      stale.push(field)
      continue
    }
    out.push({ ...entry, name: config.providers.get(entry.provider)?.name ?? entry.provider })
  }
  if (stale.length > 0) await config.serverState.deleteFields(key, stale)
  return out.sort((a, b) => a.provider.localeCompare(b.provider))
}

function requireAdapter(config: ResolvedConfig): SafeAdapter {
  if (!config.adapter) throw new MissingAdapter("Linked accounts need an adapter.")
  return safeAdapter(config.adapter as Adapter, config.logger)
}

/** The provider account ids of the user's linked accounts at `provider` (server side only, never shown). */
export async function linkedAccountIds(config: ResolvedConfig, userId: string, provider: string): Promise<string[]> {
  const accounts = await indexedAccounts(config, requireAdapter(config), userId)
  return accounts.filter((a) => a.provider === provider).map((a) => a.providerAccountId)
}

/** The user's linked OAuth/OIDC accounts (no provider account ids: safe to show the user). */
export async function accountsOf(config: ResolvedConfig, userId: string): Promise<LinkedAccount[]> {
  const accounts = await indexedAccounts(config, requireAdapter(config), userId)
  return accounts.map(({ provider, name, type, linkedAt }) => ({ provider, name, type, linkedAt }))
}

/** Whether `user` can still sign in with `others` linked accounts left. */
async function keepsASignIn(config: ResolvedConfig, adapter: SafeAdapter, user: AdapterUser, others: number): Promise<boolean> {
  if (others > 0) return true
  const types = new Set([...config.providers.values()].map((p) => p.type))
  const passkeys = typeof config.adapter?.listAuthenticatorsByUserId === "function"
  if (types.has("webauthn") && passkeys && (await adapter.listAuthenticatorsByUserId(String(user.id))).length > 0) return true
  if (types.has("email") && typeof user.email === "string" && user.email !== "") return true
  return (await config.accounts.hasOtherSignIn?.(user)) === true
}

/** Waits (bounded) for the user's unlink lock: a concurrent unlink finishes first, then this one's guard sees it. */
async function takeLock(config: ResolvedConfig, lock: string): Promise<void> {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (await config.serverState.claim(lock, UNLINK_LOCK_MS)) return
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS))
  }
  throw new LastSignInMethod("Another change to this user's accounts is in progress; try again.")
}

/**
 * Unlinks the user's `provider` account(s) after the guard (module documentation), fires
 * `events.unlinkAccount` for each. Throws `AccountNotFound`, `LastSignInMethod`, or `MissingAdapter`.
 */
export async function unlinkFor(config: ResolvedConfig, userId: string, provider: string): Promise<void> {
  const adapter = requireAdapter(config)
  const lock = stateKey("unlink", userId)
  await takeLock(config, lock)
  try {
    const accounts = await indexedAccounts(config, adapter, userId)
    const leaving = accounts.filter((a) => a.provider === provider)
    if (leaving.length === 0) throw new AccountNotFound(`The user has no linked "${provider}" account.`)
    const user = await adapter.getUser(userId)
    if (!user) throw new AccountNotFound("The user no longer exists.")
    if (!(await keepsASignIn(config, adapter, user, accounts.length - leaving.length))) {
      throw new LastSignInMethod(`Unlinking "${provider}" would leave no way to sign in.`)
    }
    for (const account of leaving) {
      const key = { provider: account.provider, providerAccountId: account.providerAccountId }
      await adapter.unlinkAccount(key)
      await config.serverState.deleteFields(indexKey(userId), [account.field])
      await fireEvent({ config }, "unlinkAccount", { user, account: { ...key, type: account.type, userId } as AdapterAccount })
    }
    await forgetProviderTokens(config, userId, provider)
  } finally {
    await config.serverState.reset(lock).catch(() => undefined)
  }
}
