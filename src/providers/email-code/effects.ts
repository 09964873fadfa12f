/**
 * The two effects of the email code flow. `sendCode`: normalise the address, ask the `signIn` callback
 * (`email.verificationRequest`), draw a 6-digit code, mail it, and hand the machine only its HMAC.
 * `checkCode`: count the attempt on the server (per code sent, whatever the flow state replayed), refuse an expired code,
 * compare in constant time, and answer who signed in.
 */
import { createHmac, randomInt, timingSafeEqual } from "node:crypto"
import { EmailSignInError, Verification, stateKey } from "../../index.js"
import { type FlowServices, effect, emailAccount, providerConfig, stableUserId, text } from "../../flow/index.js"
import type { EmailCodeConfig } from "./index.js"
import type { Checked, PendingCode, Sent } from "./machine.js"

const isEmailCode = (config: unknown): config is EmailCodeConfig =>
  typeof config === "object" &&
  config !== null &&
  "sendCode" in config &&
  "maxAge" in config &&
  "maxAttempts" in config &&
  typeof config.sendCode === "function" &&
  typeof config.maxAge === "number" &&
  typeof config.maxAttempts === "number"
const providerOf = (services: FlowServices) => providerConfig(services, isEmailCode)

/** HMAC-SHA256 under the newest secret: who reads a snapshot or a key cannot try the 10⁶ codes offline. */
function keyed(services: FlowServices, ...parts: (string | number)[]): string {
  const mac = createHmac("sha256", services.secrets[0])
  return mac.update(parts.join("\u0000")).digest("hex")
}

/** The body's address, normalised: the one the emailAddress limit counted (the flow's params are the body). */
function addressOf(provider: EmailCodeConfig, params: Record<string, unknown>): string {
  try {
    return emailAccount(provider, params)
  } catch (err) {
    throw new EmailSignInError("The email address was refused.", { err })
  }
}

/** Checks the address, asks the `signIn` callback, mails a new code; the machine gets only its HMAC. */
export const sendCode = effect<Sent, { params: Record<string, unknown> }>(async (services, { params }) => {
  const provider = providerOf(services)
  const email = addressOf(provider, params)
  const user = (await services.adapter?.getUserByEmail(email)) ?? { id: stableUserId(provider.id, email), email, emailVerified: null }
  const account = { providerAccountId: email, userId: user.id, type: "email" as const, provider: provider.id }
  const verdict = await services.askSignIn({ user, account, email: { verificationRequest: true } })
  if (!verdict.allow) return { pending: null, redirect: verdict.redirect }
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0")
  const expires = services.now + provider.maxAge * 1000
  const host = new URL(services.origin).host
  try {
    const language = services.language
    await provider.sendCode({ identifier: email, code, expires: new Date(expires), host, request: services.request, language })
  } catch (err) {
    throw Object.assign(new EmailSignInError("The sign-in code could not be sent.", { err }), { code: "send_failed" })
  }
  return { pending: { email, expires, hash: keyed(services, email, expires, code) }, redirect: "" }
})

/** Counts the attempt, refuses an expired or wrong code (constant time), answers who signed in. */
export const checkCode = effect<Checked, { pending: PendingCode | null; code: unknown }>(async (services, { pending, code }) => {
  const { id, maxAge, maxAttempts } = providerOf(services)
  if (!pending) throw new Verification("No sign-in code was sent in this flow.")
  // per code, across replays of the flow state: a stranger's wrong guesses at the code it had mailed to
  // someone cannot lock that person's own code out (the emailAddress limit bounds the codes mailed)
  const attempts = stateKey("email-code", pending.hash)
  const { count } = await services.serverState.count(attempts, maxAge * 1000)
  if (count > maxAttempts) throw new Verification(`Too many codes were tried for this code (${count}).`)
  if (services.now > pending.expires) throw new Verification("The sign-in code has expired.")
  const typed = typeof code === "string" ? code.replace(/\s/g, "") : ""
  const hash = Buffer.from(keyed(services, pending.email, pending.expires, typed))
  if (!(/^\d{6}$/.test(typed) && timingSafeEqual(hash, Buffer.from(pending.hash)))) {
    if (count >= maxAttempts) throw new Verification("The last allowed sign-in code was wrong.")
    return { identity: null, retry: text(services.language, "emailCode.wrong", { count: maxAttempts - count }) }
  }
  await services.serverState.reset(attempts)
  // with an adapter, the tail links the address to its user (or creates one), as for magic links
  const user = { id: stableUserId(id, pending.email), email: pending.email, emailVerified: null }
  return { identity: { user, account: { providerAccountId: pending.email, userId: user.id, type: "email", provider: id } }, retry: "" }
})
