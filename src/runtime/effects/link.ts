/**
 * User and account linking with an adapter (Auth.js' rules, `handle-login.ts` in `@auth/core`), and who is signed in now.
 *
 * OAuth/OIDC: an existing account signs its user in (another signed-in user → `OAuthAccountNotLinked`);
 * a signed-in user gets the account linked; the same email under an unlinked user is
 * `OAuthAccountNotLinked` unless the provider allows dangerous linking; otherwise a user is created.
 * Credentials: the user `authorize` returned is created in the adapter when it is not there yet, so
 * database sessions work for credentials too. WebAuthn: like OAuth with `AccountNotLinked`, and the
 * registered passkey stored once its user is known.
 */
import { effect } from "./effect.js"
import type { EffectContext } from "../flow.js"
import { randomUUID } from "node:crypto"
import { AccountNotLinked, AdapterError, FlowStoreUnavailable, OAuthAccountNotLinked, WebAuthnVerificationError } from "../../errors.js"
import { withKeyLock } from "../lock.js"
import type { AdapterAccount, AdapterUser } from "../../adapters/types.js"
import type { FlowUser, Identity } from "../../machines/types.js"
import { type SafeAdapter, adapterOf } from "../adapter.js"
import { fireEvent } from "../events.js"
import { currentUser } from "../session.js"
import { recordAccount } from "../accounts.js"

function newUser(user: FlowUser, emailVerified: Date | null): AdapterUser {
  const { id: _ignored, ...fields } = user
  return { ...fields, id: randomUUID(), email: user.email ?? "", emailVerified } as AdapterUser
}

/** Creates a user (fresh id) and fires `createUser`. */
async function createUser(ctx: EffectContext, adapter: SafeAdapter, user: FlowUser, emailVerified: Date | null) {
  const created = await adapter.createUser(newUser(user, emailVerified))
  await fireEvent(ctx, "createUser", { user: created })
  return created
}

/** Links an account to a user and fires `linkAccount`. */
async function linkAccount(ctx: EffectContext, adapter: SafeAdapter, user: AdapterUser, account: AdapterAccount, profile: FlowUser) {
  const linked = { ...account, userId: user.id } as AdapterAccount
  await adapter.linkAccount(linked)
  await fireEvent(ctx, "linkAccount", { user, account: linked, profile })
  return linked
}

/**
 * Links under a per-account lock (one process), and once more after a failed write: another instance
 * may have created the user or account in between, and the second pass then finds it.
 */
async function linkOAuth(ctx: EffectContext, adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const account = identity.account as AdapterAccount
  const scope = ctx.config.adapter as object
  const key = `${account.provider}\u0000${account.providerAccountId}`
  return withKeyLock(scope, key, async () => {
    try {
      return await linkOAuthOnce(ctx, adapter, identity)
    } catch (err) {
      if (!(err instanceof AdapterError)) throw err
      return linkOAuthOnce(ctx, adapter, identity)
    }
  })
}

async function linkOAuthOnce(ctx: EffectContext, adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const account = identity.account as AdapterAccount
  const key = { provider: account.provider, providerAccountId: account.providerAccountId }
  const signedIn = await currentUser(ctx, adapter)
  const existing = await adapter.getUserByAccount(key)
  if (existing) {
    if (signedIn && signedIn.id !== existing.id) {
      throw new OAuthAccountNotLinked("The account is already associated with another user.")
    }
    return { ...identity, user: existing as unknown as FlowUser, account: { ...account, userId: existing.id }, isNewUser: false }
  }
  const allowDangerous = (ctx.provider?.config as { allowDangerousEmailAccountLinking?: boolean }).allowDangerousEmailAccountLinking
  let user: AdapterUser
  let isNewUser = false
  if (signedIn) {
    user = signedIn
  } else {
    const email = identity.user.email
    const sameEmail = email ? await adapter.getUserByEmail(email) : null
    if (sameEmail && !allowDangerous) {
      throw new OAuthAccountNotLinked("Another account already exists with the same e-mail address.")
    }
    if (sameEmail) {
      user = sameEmail
    } else {
      user = await createUser(ctx, adapter, identity.user, null)
      isNewUser = true
    }
  }
  const linked = await linkAccount(ctx, adapter, user, account, identity.user)
  return { ...identity, user: user as unknown as FlowUser, account: linked, isNewUser }
}

async function ensureCredentialsUser(adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const id = identity.user.id as string
  const existing = await adapter.getUser(id)
  if (existing) return { ...identity, user: { ...identity.user, ...existing } }
  const created = await adapter.createUser({ ...newUser(identity.user, null), id })
  return { ...identity, user: { ...identity.user, ...created } }
}

/**
 * Email: an existing user gets `emailVerified` refreshed (`updateUser` event), and under database
 * sessions a session of another user in this browser is ended first; otherwise the user is created.
 */
async function linkEmail(ctx: EffectContext, adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const email = identity.user.email as string
  return withKeyLock(ctx.config.adapter as object, `email\u0000${email}`, () => linkEmailOnce(ctx, adapter, identity, email))
}

async function linkEmailOnce(ctx: EffectContext, adapter: SafeAdapter, identity: Identity, email: string): Promise<Identity> {
  const now = new Date(ctx.now)
  const existing = await adapter.getUserByEmail(email)
  let user: AdapterUser
  if (existing) {
    if (ctx.config.session.strategy === "database") {
      const token = ctx.req.cookies[ctx.cookies.sessionToken.name]
      const current = token ? await adapter.getSessionAndUser(token) : null
      if (token && current && current.user.id !== existing.id) await adapter.deleteSession(token)
    }
    user = (await adapter.updateUser({ id: existing.id, emailVerified: now })) ?? { ...existing, emailVerified: now }
    await fireEvent(ctx, "updateUser", { user })
  } else {
    user = await createUser(ctx, adapter, identity.user, now)
  }
  const account = { ...(identity.account as AdapterAccount), userId: user.id }
  return { ...identity, user: user as unknown as FlowUser, account, isNewUser: !existing }
}

/**
 * WebAuthn (Auth.js' webauthn branch): a known credential signs its user in (another signed-in user →
 * `AccountNotLinked`); a new one is linked to the signed-in user, or to a user created from the
 * registration's email (taken by an existing user → `AccountNotLinked`). Then the new passkey is stored.
 */
async function linkWebAuthn(ctx: EffectContext, adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const account = identity.account as AdapterAccount
  const key = `${account.provider}\u0000${account.providerAccountId}`
  return withKeyLock(ctx.config.adapter as object, key, async () => {
    const signedIn = await currentUser(ctx, adapter)
    const existing = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
    const { authenticator, ...rest } = identity
    if (existing) {
      if (authenticator) throw new WebAuthnVerificationError("This passkey is already registered.")
      if (signedIn && signedIn.id !== existing.id) {
        throw new AccountNotLinked("The account is already associated with another user.")
      }
      return { ...rest, user: existing as unknown as FlowUser, account: { ...account, userId: existing.id }, isNewUser: false }
    }
    let user: AdapterUser
    let isNewUser = false
    if (signedIn) {
      user = signedIn
    } else {
      const email = identity.user.email
      if (email && (await adapter.getUserByEmail(email))) {
        throw new AccountNotLinked("Another account already exists with the same e-mail address.")
      }
      user = await createUser(ctx, adapter, identity.user, null)
      isNewUser = true
    }
    const linked = await linkAccount(ctx, adapter, user, account, identity.user)
    if (authenticator) await adapter.createAuthenticator({ ...authenticator, userId: user.id })
    return { ...rest, user: user as unknown as FlowUser, account: linked, isNewUser }
  })
}

/** Notes the account in the user's account index (`GET /auth/accounts`); a failure is logged, the sign-in goes on. */
async function indexAccount(ctx: EffectContext, identity: Identity): Promise<void> {
  const account = identity.account as AdapterAccount
  try {
    await recordAccount(ctx.config, String(identity.user.id), account, ctx.now)
  } catch (err) {
    ctx.config.logger.error(new FlowStoreUnavailable("The linked account could not be indexed.", { err }))
  }
}

/** The tail's linking step: a no-op without an adapter. */
export const linkIdentity = effect<Identity, Identity>(async (ctx, input) => {
  const adapter = adapterOf(ctx)
  if (!adapter || !input.account) return input
  switch (input.account.type) {
    case "oauth":
    case "oidc": {
      const linked = await linkOAuth(ctx, adapter, input)
      await indexAccount(ctx, linked)
      return linked
    }
    case "credentials":
      return ctx.config.session.strategy === "database" ? ensureCredentialsUser(adapter, input) : input
    case "email":
      return linkEmail(ctx, adapter, input)
    case "webauthn":
      return linkWebAuthn(ctx, adapter, input)
    default:
      return input
  }
})
