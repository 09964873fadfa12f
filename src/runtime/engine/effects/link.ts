/**
 * User and account linking with an adapter (Auth.js' rules, `handle-login.ts` in `@auth/core`), and who is signed in now.
 *
 * OAuth/OIDC: an existing account signs its user in (another signed-in user → `OAuthAccountNotLinked`);
 * a signed-in user gets the account linked; the same email under an unlinked user is
 * `OAuthAccountNotLinked` unless the provider allows dangerous linking; otherwise a user is created.
 * Credentials: the user `authorize` returned is created in the adapter when it is not there yet, so
 * database sessions work for credentials too. WebAuthn: like OAuth with `AccountNotLinked`, and the
 * registered passkey stored once its user is known; a passkey sign-in's account and user are those the
 * verify step looked up.
 */
import { contextEffect } from "./effect.js"
import type { EffectContext } from "../define-flow.js"
import { randomUUID } from "node:crypto"
import { AccountNotLinked, AdapterError, FlowStoreUnavailable, OAuthAccountNotLinked, WebAuthnVerificationError } from "../../../errors.js"
import { withKeyLock } from "../lock.js"
import type { AdapterAccount, AdapterAccountType, AdapterUser } from "../../../adapters/types.js"
import type { FlowAccount, FlowUser, Identity } from "../../../machines/types.js"
import { type SafeAdapter, adapterOf } from "../../sessions/adapter.js"
import { fireEvent } from "../../config/events.js"
import { currentUser } from "../../sessions/session.js"
import { recordAccount } from "../../sessions/accounts.js"
import { extended } from "../../config/plain-object.js"
import { storedAccount } from "./oauth-profile.js"
import type { BuiltInLinking } from "../../../types/flow-declarations.js"
import { declarationOf } from "../../config/declarations.js"
import { flowServices } from "./services.js"

/** Linking as the runtime does it for a built-in flow: with the whole request context. */
type ContextLinker = (ctx: EffectContext, identity: Identity) => Identity | Promise<Identity>

/**
 * A new user from the flow's: a fresh id in place of any it carried. Built with `extended`, not a spread
 * followed by keys, as are the other objects made here: each of those had a hidden class of its own.
 */
function newUser(user: FlowUser, emailVerified: Date | null): AdapterUser {
  return extended(user, { id: randomUUID(), email: user.email ?? "", emailVerified })
}

/** A user as the flow carries it on: a plain copy of the adapter's. */
function asFlowUser(user: AdapterUser): FlowUser {
  return { ...user }
}

/** An account of a type the adapter stores, before it is linked to a user. */
interface UnlinkedAccount extends FlowAccount {
  type: AdapterAccountType
}

/** Creates a user (fresh id) and fires `createUser`. */
async function createUser(ctx: EffectContext, adapter: SafeAdapter, user: FlowUser, emailVerified: Date | null) {
  const created = await adapter.createUser(newUser(user, emailVerified))
  // no handler, no call (an async call and a wait fewer per sign-up)
  if (ctx.config.events.createUser) await fireEvent(ctx, "createUser", { user: created })
  return created
}

/** Links an account to a user and fires `linkAccount`. */
async function linkAccount(ctx: EffectContext, adapter: SafeAdapter, account: AdapterAccount, user: AdapterUser, profile: FlowUser) {
  await adapter.linkAccount(account)
  if (ctx.config.events.linkAccount) await fireEvent(ctx, "linkAccount", { user, account, profile })
  return account
}

/** How linking differs between the providers whose accounts are linked to users (OAuth/OIDC, WebAuthn). */
interface LinkRules {
  /** The error when the account belongs to another user, or its email to a user it is not linked to. */
  readonly NotLinked: typeof OAuthAccountNotLinked | typeof AccountNotLinked
  /** Whether an unlinked user with the same email gets the account (OAuth's `allowDangerousEmailAccountLinking`). */
  readonly linkByEmail: boolean
  /** Whether to link once more after a failed adapter write (another instance may have linked in between). */
  readonly retry: boolean
  /** What the adapter stores of a new account (OAuth: the provider's `account()`), made only when it is linked. */
  readonly stored?: (account: UnlinkedAccount) => UnlinkedAccount
}

/**
 * OAuth / OIDC: `OAuthAccountNotLinked`, linking by email only when the provider allows it, one retry; a
 * new account is stored as the provider's `account()` makes it (Auth.js calls it only then too).
 */
function oauthRules(ctx: EffectContext): LinkRules {
  const config = ctx.provider?.config
  const oauth = config?.type === "oauth" || config?.type === "oidc" ? config : undefined
  const linkByEmail = oauth?.allowDangerousEmailAccountLinking === true
  return { NotLinked: OAuthAccountNotLinked, linkByEmail, retry: true, stored: (account) => storedAccount(oauth, account) }
}

/** WebAuthn (Auth.js' webauthn branch): `AccountNotLinked`, never by email. */
const WEBAUTHN_RULES: LinkRules = { NotLinked: AccountNotLinked, linkByEmail: false, retry: false }

/**
 * Links an account to its user, under a per-account lock (one process; across processes the adapter's
 * constraints decide, and with `retry` a second pass after a failed write finds what another instance
 * created).
 */
async function linkProviderAccount(
  ctx: EffectContext,
  adapter: SafeAdapter,
  identity: Identity,
  account: UnlinkedAccount,
  rules: LinkRules,
) {
  return withKeyLock(adapter, `${account.provider}\u0000${account.providerAccountId}`, async () => {
    try {
      return await linkProviderAccountOnce(ctx, adapter, identity, account, rules)
    } catch (err) {
      if (!(rules.retry && err instanceof AdapterError)) throw err
      return linkProviderAccountOnce(ctx, adapter, identity, account, rules)
    }
  })
}

/**
 * A known account signs its user in (another signed-in user → `NotLinked`; a passkey being registered
 * again → `WebAuthnVerificationError`). A new one is linked to the signed-in user, else to the user with
 * its email when the rules allow (otherwise `NotLinked`), else to a new user. A registered passkey is
 * stored once its user is known.
 */
async function linkProviderAccountOnce(
  ctx: EffectContext,
  adapter: SafeAdapter,
  identity: Identity,
  account: UnlinkedAccount,
  rules: LinkRules,
): Promise<Identity> {
  // what this answers carries no authenticator (it is stored here): the key cleared, not a rest pattern
  const { authenticator } = identity
  const signedIn = await currentUser(ctx, adapter)
  const existing = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
  if (existing) {
    if (authenticator) throw new WebAuthnVerificationError("This passkey is already registered.")
    if (signedIn && signedIn.id !== existing.id) throw new rules.NotLinked("The account is already associated with another user.")
    return extended(identity, {
      authenticator: undefined,
      user: asFlowUser(existing),
      account: extended(account, { userId: existing.id }),
      isNewUser: false,
    })
  }
  let user = signedIn
  let isNewUser = false
  if (!user) {
    const email = identity.user.email
    const sameEmail = email ? await adapter.getUserByEmail(email) : null
    if (sameEmail && !rules.linkByEmail) throw new rules.NotLinked("Another account already exists with the same e-mail address.")
    user = sameEmail ?? (await createUser(ctx, adapter, identity.user, null))
    isNewUser = !sameEmail
  }
  const stored = rules.stored ? rules.stored(account) : account
  const linked = await linkAccount(ctx, adapter, extended(stored, { userId: user.id }), user, identity.user)
  if (authenticator) await adapter.createAuthenticator(extended(authenticator, { userId: user.id }))
  return extended(identity, { authenticator: undefined, user: asFlowUser(user), account: linked, isNewUser })
}

/**
 * A passkey sign-in: the verify step found the passkey's account and its user (`getAccount`, then
 * `getUser`), so there is nothing to look up or link again; a signed-in user other than the passkey's
 * is `AccountNotLinked`, as for any known account.
 */
async function passkeySignIn(ctx: EffectContext, adapter: SafeAdapter, identity: Identity): Promise<Identity> {
  const signedIn = await currentUser(ctx, adapter)
  if (signedIn && signedIn.id !== identity.user.id) throw new AccountNotLinked("The account is already associated with another user.")
  return extended(identity, { isNewUser: false })
}

/** Credentials under database sessions: the user `authorize` returned, created when the adapter lacks it. */
async function ensureCredentialsUser(adapter: SafeAdapter, identity: Identity, id: string): Promise<Identity> {
  const existing = await adapter.getUser(id)
  if (existing) return { ...identity, user: { ...identity.user, ...existing } }
  const created = await adapter.createUser({ ...newUser(identity.user, null), id })
  return { ...identity, user: { ...identity.user, ...created } }
}

/**
 * Email: an existing user gets `emailVerified` refreshed (`updateUser` event), and under database
 * sessions a session of another user in this browser is ended first; otherwise the user is created.
 */
async function linkEmail(ctx: EffectContext, adapter: SafeAdapter, identity: Identity, account: FlowAccount): Promise<Identity> {
  const email = identity.user.email ?? account.providerAccountId
  return withKeyLock(adapter, `email\u0000${email}`, () => linkEmailOnce(ctx, adapter, identity, account, email))
}

async function linkEmailOnce(
  ctx: EffectContext,
  adapter: SafeAdapter,
  identity: Identity,
  account: FlowAccount,
  email: string,
): Promise<Identity> {
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
  return { ...identity, user: asFlowUser(user), account: { ...account, type: "email", userId: user.id }, isNewUser: !existing }
}

/** Notes the account in the user's account index (`GET /auth/accounts`); a failure is logged, the sign-in goes on. */
async function indexAccount(ctx: EffectContext, user: FlowUser, account: UnlinkedAccount): Promise<void> {
  try {
    await recordAccount(ctx.config, String(user.id), account, ctx.now)
  } catch (err) {
    ctx.config.logger.error(new FlowStoreUnavailable("The linked account could not be indexed.", { err }))
  }
}

/**
 * OAuth/OIDC: the account linked to its user, then noted in the user's account index. The adapter and the
 * `linkAccount` event get the stored account (the provider's `account()` of the token set, with `userId`);
 * the callbacks and the `signIn` event after this keep the whole token response, as in Auth.js.
 */
async function linkOAuth(ctx: EffectContext, adapter: SafeAdapter, input: Identity, oauthAccount: UnlinkedAccount): Promise<Identity> {
  const linked = await linkProviderAccount(ctx, adapter, input, oauthAccount, oauthRules(ctx))
  await indexAccount(ctx, linked.user, oauthAccount)
  return extended(linked, { account: input.account })
}

/** OAuth/OIDC accounts: linked to their user, noted in the user's account index. */
const linkOAuthIdentity: ContextLinker = (ctx, input) => {
  const adapter = adapterOf(ctx)
  const { account } = input
  if (!adapter || !account || (account.type !== "oauth" && account.type !== "oidc")) return input
  return linkOAuth(ctx, adapter, input, { ...account, type: account.type })
}

/** Credentials: under database sessions the user `authorize` returned, created when the adapter lacks it. */
const linkCredentialsIdentity: ContextLinker = (ctx, input) => {
  const adapter = adapterOf(ctx)
  const { account } = input
  if (!adapter || !account || ctx.config.session.strategy !== "database") return input
  return ensureCredentialsUser(adapter, input, account.providerAccountId)
}

/** Email: the address's user, created when new, `emailVerified` refreshed. */
const linkEmailIdentity: ContextLinker = (ctx, input) => {
  const adapter = adapterOf(ctx)
  const { account } = input
  if (!adapter || !account) return input
  return linkEmail(ctx, adapter, input, account)
}

/** WebAuthn: a passkey sign-in's known user, or a registered passkey's account linked and stored. */
const linkWebAuthnIdentity: ContextLinker = (ctx, input) => {
  const adapter = adapterOf(ctx)
  const { account } = input
  if (!adapter || !account) return input
  if (!input.authenticator && account.userId !== undefined && account.userId === input.user.id) return passkeySignIn(ctx, adapter, input)
  return linkProviderAccount(ctx, adapter, input, { ...account, type: "webauthn" }, WEBAUTHN_RULES)
}

/** Linking as each built-in flow does it, by the name a flow may declare (`link: "email"`). */
export const builtInLinking: Readonly<Record<BuiltInLinking, ContextLinker>> = Object.freeze({
  oauth: linkOAuthIdentity,
  credentials: linkCredentialsIdentity,
  email: linkEmailIdentity,
  webauthn: linkWebAuthnIdentity,
})

/**
 * The tail's linking step: a no-op without an adapter (answered at once then); otherwise the linking the
 * provider's flow declares (`link`), else the identity as the flow found it.
 */
export const linkIdentity = contextEffect<Identity, Identity>((ctx, input) => {
  if (!adapterOf(ctx) || !input.account || !ctx.provider) return input
  const link = declarationOf(ctx.config, ctx.provider, "link")
  if (link === undefined) return input
  // a flow's own linker gets the request's services; the built-in ones are the runtime's and get its context
  return typeof link === "string" ? builtInLinking[link](ctx, input) : link(flowServices(ctx, ctx.callbackUrl), input)
})
