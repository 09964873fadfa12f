/**
 * How the factor routes answer: JSON to `Accept: application/json`, the themed pages otherwise; the
 * refusals (`FactorRefusal`) with their status and message, and who is signed in (401 / sign-in first).
 */
import type { Handled, RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import { NO_CACHE, formTargets, htmlPage, jsonWithCookies, redirect } from "../http/respond.js"
import { type SignedIn, signedIn } from "../sessions/signed-in.js"
import { freshProofUrl } from "./fresh-proof.js"

/** Why a factor request was refused: the `error` of the JSON answer and of the page's `?error=`. */
export type FactorRefusal =
  | "ProofTooOld"
  | "FactorNotFound"
  | "LastSignInMethod"
  | "InvalidCode"
  | "InvalidName"
  | "NoEnrolment"
  | "TotpActive"
  | "Busy"

const STATUS: Readonly<Record<FactorRefusal, number>> = {
  ProofTooOld: 403,
  FactorNotFound: 404,
  LastSignInMethod: 409,
  InvalidCode: 400,
  InvalidName: 400,
  NoEnrolment: 409,
  TotpActive: 409,
  Busy: 409,
}

export const REFUSED: Readonly<Record<FactorRefusal, string>> = {
  ProofTooOld: "Sign in again to confirm it is you, then try again.",
  FactorNotFound: "There is no such factor on your account.",
  LastSignInMethod: "This is your last way to sign in.",
  InvalidCode: "That code is not valid. Try again.",
  InvalidName: "Give the passkey a name.",
  NoEnrolment: "Start the setup again.",
  TotpActive: "An authenticator app is already set up. Turn it off first.",
  Busy: "Another change to your account is in progress. Try again.",
}

export const DONE: Readonly<Record<string, string>> = {
  "totp-removed": "The authenticator app is turned off.",
  "passkey-renamed": "The passkey is renamed.",
  "passkey-deleted": "The passkey is deleted. It can no longer sign in.",
}

export const wantsJson = (ctx: RequestContext) => (ctx.req.headers.get("accept") ?? "").includes("application/json")
export const factorsUrl = (ctx: RequestContext) => `${ctx.authUrl}/factors`

/** The signed-in user, or the 401 answer (JSON) / the sign-in page (a browser). */
export async function requireUser(ctx: RequestContext): Promise<SignedIn | Handled> {
  const who = await signedIn(ctx)
  if (who.userId !== undefined) return { ...who, userId: who.userId }
  if (!wantsJson(ctx) && ctx.req.method === "GET") {
    return { response: redirect(`${ctx.authUrl}/signin?${new URLSearchParams({ callbackUrl: factorsUrl(ctx) })}`, who.cookies) }
  }
  return { response: jsonWithCookies({ error: "Unauthorized", message: "Sign in first." }, [...who.cookies], 401, NO_CACHE) }
}

/** A refusal: JSON with its status, or back to the list (or to the fresh proof) with `?error=`. */
export function refuse(ctx: RequestContext, who: SignedIn, error: FactorRefusal, extra: Record<string, string> = {}): Handled {
  if (wantsJson(ctx)) {
    const body = { error, message: REFUSED[error], ...(error === "ProofTooOld" ? { reauthUrl: freshProofUrl(ctx, factorsUrl(ctx)) } : {}) }
    return { response: jsonWithCookies(body, [...who.cookies], STATUS[error], NO_CACHE) }
  }
  if (error === "ProofTooOld") return { response: redirect(freshProofUrl(ctx, factorsUrl(ctx)), who.cookies) }
  return { response: redirect(`${factorsUrl(ctx)}?${new URLSearchParams({ error, ...extra })}`, who.cookies) }
}

/** A change made: JSON `body`, or back to the list saying so. */
export function done(ctx: RequestContext, who: SignedIn, body: unknown, what: keyof typeof DONE): Handled {
  if (wantsJson(ctx)) return { response: jsonWithCookies(body, [...who.cookies], 200, NO_CACHE) }
  return { response: redirect(`${factorsUrl(ctx)}?${new URLSearchParams({ done: what })}`, who.cookies) }
}

/** A themed page of this room (never cached: it shows secrets), with the CSRF cookie when one was made. */
export function page(ctx: RequestContext, who: SignedIn, nonce: string, markup: string, cookie?: OutCookie): Handled {
  const response = htmlPage(markup, { nonce, formAction: formTargets(ctx) }, 200, [...who.cookies, ...(cookie ? [cookie] : [])])
  return { response: { ...response, headers: { ...response.headers, ...NO_CACHE } } }
}

const isRefusal = (text: string): text is FactorRefusal => Object.hasOwn(REFUSED, text)
export const refusalOf = (text: string | null): FactorRefusal | undefined => (text !== null && isRefusal(text) ? text : undefined)
