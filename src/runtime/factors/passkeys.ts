/**
 * A user's passkeys as the account pages show them: the adapter's `Authenticator` rows (the truth: which
 * passkeys exist and whose they are), with the name the user gave each and its last use, which the
 * Auth.js tables have no column for and which are kept in the server-state port instead: one record
 * `passkeys:{<userId>}` with fields `name:<credentialID>` and `used:<credentialID>` (ms since the epoch).
 *
 * Deleting a passkey unlinks its WebAuthn account (so the sign-in that finds it by its account fails)
 * and deletes the row when the adapter has `deleteAuthenticator`; otherwise the row stays and a field
 * `gone:<credentialID>` keeps it out of the list.
 */
import type { AdapterAuthenticator } from "../../adapters/types.js"
import type { ResolvedConfig } from "../../types/resolved.js"
import { stateKey } from "../limits/server-state.js"
import { type SafeAdapter, safeAdapter } from "../sessions/adapter.js"
import { FACTOR_KEPT_MS } from "./totp-secrets.js"

/** A passkey of the signed-in user, as listed to them. */
export interface PasskeyInfo {
  /** The credential id as the adapter stores it (base64): what rename and delete name. */
  readonly id: string
  /** The name the user gave it, or null. */
  readonly name: string | null
  /** When it last signed in (ISO 8601), or null when authchart has not seen it used. */
  readonly lastUsedAt: string | null
  /** Whether the credential is backed up (synced) by its provider. */
  readonly backedUp: boolean
}

/** The longest passkey name kept. */
export const PASSKEY_NAME_MAX = 64

const recordKey = (userId: string) => stateKey("passkeys", userId)

/** The adapter, wrapped, when it can list passkeys; undefined otherwise. */
export function passkeyAdapter(config: ResolvedConfig): SafeAdapter | undefined {
  const adapter = config.adapter
  return adapter && typeof adapter.listAuthenticatorsByUserId === "function" ? safeAdapter(adapter, config.logger) : undefined
}

/** The user's passkeys with their names and last use. */
export async function passkeysOf(config: ResolvedConfig, userId: string): Promise<PasskeyInfo[]> {
  const adapter = passkeyAdapter(config)
  if (!adapter) return []
  const [rows, fields] = await Promise.all([adapter.listAuthenticatorsByUserId(userId), config.serverState.getFields(recordKey(userId))])
  return rows
    .filter((row) => String(row.userId) === userId && fields[`gone:${row.credentialID}`] === undefined)
    .map((row) => {
      const used = Number(fields[`used:${row.credentialID}`])
      return {
        id: row.credentialID,
        name: fields[`name:${row.credentialID}`] ?? null,
        lastUsedAt: Number.isFinite(used) && used > 0 ? new Date(used).toISOString() : null,
        backedUp: row.credentialBackedUp === true,
      }
    })
}

/** The user's own passkey with this id, or null (none, or another user's: the same answer). */
export async function ownPasskey(config: ResolvedConfig, userId: string, id: string): Promise<AdapterAuthenticator | null> {
  const adapter = passkeyAdapter(config)
  if (!adapter || id === "") return null
  const [row, fields] = await Promise.all([adapter.getAuthenticator(id), config.serverState.getFields(recordKey(userId))])
  return row && String(row.userId) === userId && fields[`gone:${id}`] === undefined ? row : null
}

/** A name as kept: trimmed, control characters out, at most {@link PASSKEY_NAME_MAX} characters. */
export function cleanPasskeyName(name: string): string {
  return [...name.replace(/\p{Cc}/gu, " ").trim()].slice(0, PASSKEY_NAME_MAX).join("")
}

/** Names the user's passkey `id` (already checked to be theirs). */
export async function namePasskey(config: ResolvedConfig, userId: string, id: string, name: string): Promise<void> {
  await config.serverState.setFields(recordKey(userId), { [`name:${id}`]: name }, FACTOR_KEPT_MS)
}

/** Notes that the user's passkey `id` signed in at `now` (the sign-in tail calls it). */
export async function notePasskeyUse(config: ResolvedConfig, userId: string, id: string, now: number): Promise<void> {
  await config.serverState.setFields(recordKey(userId), { [`used:${id}`]: String(now) }, FACTOR_KEPT_MS)
}

/**
 * Deletes the user's passkey `row`: its WebAuthn account is unlinked at every WebAuthn provider that
 * links it (the passkey sign-in then finds no account), its row deleted where the adapter can, its name
 * and last use forgotten.
 */
export async function deletePasskey(config: ResolvedConfig, userId: string, row: AdapterAuthenticator): Promise<void> {
  const adapter = safeAdapter(config.adapter ?? {}, config.logger)
  for (const provider of config.providers.values()) {
    if (provider.type !== "webauthn") continue
    const account = await adapter.getAccount(row.providerAccountId, provider.id)
    if (account && String(account.userId) === userId)
      await adapter.unlinkAccount({ provider: provider.id, providerAccountId: row.providerAccountId })
  }
  const key = recordKey(userId)
  await config.serverState.deleteFields(key, [`name:${row.credentialID}`, `used:${row.credentialID}`])
  if (typeof config.adapter?.deleteAuthenticator === "function") await adapter.deleteAuthenticator(row.credentialID)
  else await config.serverState.setFields(key, { [`gone:${row.credentialID}`]: "1" }, FACTOR_KEPT_MS)
}
