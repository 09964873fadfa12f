/**
 * How the factor routes answer: JSON to `Accept: application/json`, the themed pages otherwise; the
 * refusals (`FactorRefusal`) with their status and message, and who is signed in (401 / sign-in first).
 */
import { type Language, text } from "../../messages/text.js"
import type { Handled, RequestContext } from "../http/context.js"
import { chooseLanguage } from "../http/language.js"
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

/** The message of a refusal: its catalogue text in the request's language. */
export const refusedText = (language: Language, error: FactorRefusal): string => text(language, `factors.refused.${error}`)

/** What a change done says on the list page (`?done=`). */
export type FactorDone = "totp-removed" | "passkey-renamed" | "passkey-deleted"

const DONE_KEYS: ReadonlySet<string> = new Set<FactorDone>(["totp-removed", "passkey-renamed", "passkey-deleted"])
const isDone = (what: string): what is FactorDone => DONE_KEYS.has(what)

/** The message of `?done=` on the list page, or undefined for anything else. */
export const doneText = (language: Language, what: string | null): string | undefined =>
  what !== null && isDone(what) ? text(language, `factors.done.${what}`) : undefined

/** The request's language, and whether it came from `Accept-Language` (then answers vary by it). */
export const languageOf = (ctx: RequestContext) => chooseLanguage(ctx.config.languages, ctx.req.headers)

export const wantsJson = (ctx: RequestContext) => (ctx.req.headers.get("accept") ?? "").includes("application/json")
export const factorsUrl = (ctx: RequestContext) => `${ctx.authUrl}/factors`

/** The signed-in user, or the 401 answer (JSON) / the sign-in page (a browser). */
export async function requireUser(ctx: RequestContext): Promise<SignedIn | Handled> {
  const who = await signedIn(ctx)
  if (who.userId !== undefined) return { ...who, userId: who.userId }
  if (!wantsJson(ctx) && ctx.req.method === "GET") {
    return { response: redirect(`${ctx.authUrl}/signin?${new URLSearchParams({ callbackUrl: factorsUrl(ctx) })}`, who.cookies) }
  }
  const message = text(languageOf(ctx).language, "factors.signInFirst")
  return { response: jsonWithCookies({ error: "Unauthorized", message }, [...who.cookies], 401, NO_CACHE) }
}

/** A refusal: JSON with its status, or back to the list (or to the fresh proof) with `?error=`. */
export function refuse(ctx: RequestContext, who: SignedIn, error: FactorRefusal, extra: Record<string, string> = {}): Handled {
  if (wantsJson(ctx)) {
    const body = {
      error,
      message: refusedText(languageOf(ctx).language, error),
      ...(error === "ProofTooOld" ? { reauthUrl: freshProofUrl(ctx, factorsUrl(ctx)) } : {}),
    }
    return { response: jsonWithCookies(body, [...who.cookies], STATUS[error], NO_CACHE) }
  }
  if (error === "ProofTooOld") return { response: redirect(freshProofUrl(ctx, factorsUrl(ctx)), who.cookies) }
  return { response: redirect(`${factorsUrl(ctx)}?${new URLSearchParams({ error, ...extra })}`, who.cookies) }
}

/** A change made: JSON `body`, or back to the list saying so. */
export function done(ctx: RequestContext, who: SignedIn, body: unknown, what: FactorDone): Handled {
  if (wantsJson(ctx)) return { response: jsonWithCookies(body, [...who.cookies], 200, NO_CACHE) }
  return { response: redirect(`${factorsUrl(ctx)}?${new URLSearchParams({ done: what })}`, who.cookies) }
}

/**
 * A themed page of this room (never cached: it shows secrets), with the CSRF cookie when one was made;
 * `Vary: Accept-Language` when its language was negotiated.
 */
export function page(ctx: RequestContext, who: SignedIn, nonce: string, markup: string, cookie?: OutCookie): Handled {
  const cookies = [...who.cookies, ...(cookie ? [cookie] : [])]
  const response = htmlPage(markup, { nonce, formAction: formTargets(ctx) }, 200, cookies, languageOf(ctx).negotiated)
  return { response: { ...response, headers: { ...response.headers, ...NO_CACHE } } }
}

const REFUSALS: ReadonlySet<string> = new Set(Object.keys(STATUS))
const isRefusal = (error: string): error is FactorRefusal => REFUSALS.has(error)
/** The refusal a `?error=` names, or undefined for anything else. */
export const refusalOf = (error: string | null): FactorRefusal | undefined => (error !== null && isRefusal(error) ? error : undefined)
