/**
 * Effects of the sign-in tail every flow ends in: the `signIn` gate and session issuance.
 */
import { contextEffect } from "./effect.js"
import type { EffectContext } from "../define-flow.js"
import type { SignInAttempt } from "../../../types/flow.js"
import type { FlowAccount, GateResult, Identity, Issued } from "../../../machines/types.js"
import type { Account, Profile, User } from "../../../types.js"
import { askSignIn } from "./ask-sign-in.js"
import { fireEvent } from "../../config/events.js"
import { adapterOf } from "../../sessions/adapter.js"
import { sessionStrategy } from "../../sessions/session.js"
import { keepProviderTokens } from "../../sessions/tokens/record.js"
import { notePasskeyUse } from "../../factors/passkeys.js"
import { storedAccount } from "./oauth-profile.js"

type SignInParams = SignInAttempt

/**
 * The user, account and profile of a sign-in. Keys are added to a literal, not spread after one: a spread
 * followed by more keys gives every request's object a hidden class of its own (a cache miss at each read).
 */
function subjectOf(identity: Identity): { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean } {
  const subject: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean } = {
    user: identity.user,
    account: identity.account,
  }
  if (identity.profile) subject.profile = identity.profile
  return subject
}

/** The `signIn` callback: true goes on; false or a throw is AccessDenied; a string redirects. */
export const signInGate = contextEffect<GateResult, Identity>(async (ctx, input) => {
  const params: SignInParams = subjectOf(input)
  const adapter = adapterOf(ctx)
  const account = input.account
  if (input.credentials) params.credentials = input.credentials
  if (adapter && account && (account.type === "oauth" || account.type === "oidc")) {
    // an OAuth/OIDC sign-in's `signIn` callback sees the adapter's user when the account is linked
    const known = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
    if (known) params.user = known
  }
  return askSignIn(ctx, params)
})

/** Issues the session, fires `signIn`, and says where to go (`pages.newUser` for new users). */
export const issueSession = contextEffect<Issued, Identity>(async (ctx, input) => {
  const subject = subjectOf(input)
  if (input.isNewUser !== undefined) subject.isNewUser = input.isNewUser
  if (ctx.config.providerTokens) await keepProviderTokens(ctx.config, subject.user.id, keptAccount(ctx, input.account))
  const cookies = await sessionStrategy(ctx).issue(ctx, sessionSubject(input, subject))
  const passkey = input.account?.type === "webauthn" ? input.account.providerAccountId : undefined
  if (passkey !== undefined && subject.user.id) await notePasskeyUse(ctx.config, String(subject.user.id), passkey, ctx.now)
  if (ctx.config.events.signIn) await fireEvent(ctx, "signIn", subject)
  return issued(ctx, input, cookies)
})

type Subject = ReturnType<typeof subjectOf>

/**
 * The account whose tokens `session.providerTokens` keeps: the stored one (the provider's `account()` of
 * the token response, as linking stores it), not the whole response the callbacks see.
 */
function keptAccount(ctx: EffectContext, account: FlowAccount | null): FlowAccount | null {
  const config = ctx.provider?.config
  if (!account || (account.type !== "oauth" && account.type !== "oidc")) return account
  return storedAccount(config?.type === "oauth" || config?.type === "oidc" ? config : undefined, account)
}

/** The provider's `sid` reaches the session only, not the `signIn` event. */
function sessionSubject(input: Identity, subject: Subject): Subject & { sid?: string } {
  return input.sid ? Object.assign({}, subject, { sid: input.sid }) : subject
}

function issued(ctx: EffectContext, input: Identity, cookies: Issued["cookies"]): Issued {
  const newUser = ctx.config.pages.newUser
  if (input.isNewUser && newUser) {
    const target = new URL(newUser, ctx.origin)
    target.searchParams.set("callbackUrl", ctx.callbackUrl)
    return { redirect: target.href, cookies }
  }
  return { redirect: ctx.callbackUrl, cookies }
}

export { askSignIn }
