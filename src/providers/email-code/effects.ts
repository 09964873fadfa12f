/**
 * The two effects of the email code flow. `sendCode`: normalise the address, ask the `signIn` callback
 * (`email.verificationRequest`), draw a 6-digit code, mail it, and hand the machine only its keyed hash.
 * `checkCode`: count the attempt on the server (per address, across flows), refuse an expired code,
 * compare in constant time, and answer who signed in.
 */
import { createHmac, randomInt, randomUUID, timingSafeEqual } from "node:crypto"
import { EmailSignInError, Verification, stateKey } from "../../index.js"
import { adapterOf, askSignIn, type EffectContext, effect, normalizeEmail, stableUserId, toUserRequest } from "../../flow/index.js"
import type { EmailCodeConfig } from "./index.js"
import type { Checked, PendingCode, Sent } from "./machine.js"

function providerOf(ctx: EffectContext): EmailCodeConfig {
  return ctx.provider?.config as unknown as EmailCodeConfig
}

/** HMAC-SHA256 under the newest secret: a leaked snapshot does not let anyone try the 10⁶ codes offline. */
function keyed(ctx: EffectContext, ...parts: string[]): string {
  return createHmac("sha256", ctx.config.secrets[0] as string)
    .update(parts.join("\u0000"))
    .digest("hex")
}

function addressOf(provider: EmailCodeConfig, input: unknown): string {
  try {
    if (typeof input !== "string" || input === "") throw new TypeError("Missing email from request body.")
    return (provider.normalizeIdentifier ?? normalizeEmail)(input)
  } catch (err) {
    throw new EmailSignInError("The email address was refused.", { err })
  }
}

export const sendCode = effect<Sent, { params: Record<string, unknown> }>(async (ctx, { params }) => {
  const provider = providerOf(ctx)
  const email = addressOf(provider, params.email)
  const id = stableUserId(provider.id, email)
  const user = (await adapterOf(ctx)?.getUserByEmail(email)) ?? { id, email, emailVerified: null }
  const account = { providerAccountId: email, userId: user.id, type: "email" as const, provider: provider.id }
  const verdict = await askSignIn(ctx, { user, account, email: { verificationRequest: true } })
  if (!verdict.allow) return { redirect: verdict.redirect }
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0")
  const expires = ctx.now + provider.maxAge * 1000
  try {
    const request = toUserRequest(ctx.req)
    await provider.sendCode({ identifier: email, code, expires: new Date(expires), host: new URL(ctx.origin).host, provider, request })
  } catch (err) {
    const error = new EmailSignInError("The sign-in code could not be sent.", { err, provider: provider.id })
    error.code = "send_failed"
    throw error
  }
  const salt = randomUUID()
  return { sent: { email, salt, hash: keyed(ctx, salt, code), expires } }
})

export const checkCode = effect<Checked, { pending: PendingCode; code: unknown }>(async (ctx, { pending, code }) => {
  const provider = providerOf(ctx)
  // per address, across flows: a new code does not buy new guesses
  const attempts = stateKey("email-code", keyed(ctx, pending.email))
  const { count } = await ctx.config.serverState.count(attempts, provider.maxAge * 1000)
  if (count > provider.maxAttempts) throw new Verification(`Too many codes were tried for this address (${count}).`)
  if (ctx.now > pending.expires) throw new Verification("The sign-in code has expired.")
  const typed = typeof code === "string" ? code.replace(/\s/g, "") : ""
  const right = /^\d{6}$/.test(typed) && timingSafeEqual(Buffer.from(keyed(ctx, pending.salt, typed)), Buffer.from(pending.hash))
  if (!right) {
    if (count >= provider.maxAttempts) throw new Verification("The last allowed sign-in code was wrong.")
    const left = provider.maxAttempts - count
    return { retry: `That code is not right. ${left} ${left === 1 ? "attempt" : "attempts"} left.` }
  }
  await ctx.config.serverState.reset(attempts)
  // with an adapter the tail links the address to its user (or creates one), as for magic links
  const id = stableUserId(provider.id, pending.email)
  const account = { providerAccountId: pending.email, userId: id, type: "email", provider: provider.id }
  return { identity: { user: { id, email: pending.email, emailVerified: null }, account } }
})
