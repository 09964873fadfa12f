/**
 * The signed-in user's second factors over HTTP (docs/second-factors.md), one route row each:
 *
 * | request | answer (JSON) |
 * |---|---|
 * | `GET <base>/factors` | 200 `{ totp, passkeys, recoveryCodesLeft }` |
 * | `POST <base>/totp-enrol` | 200 `{ secret, uri, qrSvg }`: a pending secret (`qrSvg` null without `qrcode`); 409 `TotpActive` |
 * | `POST <base>/totp-confirm` (`code`) | 200 `{ totp: true, recoveryCodes }`; 400 `InvalidCode`; 409 `NoEnrolment` |
 * | `POST <base>/totp-remove` | 200 `{ totp: false }`; 403 `ProofTooOld`; 404 `FactorNotFound` |
 * | `POST <base>/passkey-rename` (`id`, `name`) | 200 `{ renamed: true }`; 404 `FactorNotFound`; 400 `InvalidName` |
 * | `POST <base>/passkey-delete` (`id`, `confirm=last`) | 200 `{ deleted: true }`; 403 `ProofTooOld`; 404 `FactorNotFound`; 409 `LastSignInMethod` |
 * | `POST <base>/recovery-codes` | 200 `{ recoveryCodes }`; 403 `ProofTooOld` |
 *
 * Signed in only (401 otherwise); POSTs need the CSRF token. `Accept: application/json` gets JSON;
 * anything else gets the themed pages: the list, the enrolment page, the new recovery codes, and after
 * any other POST a redirect back to the list (`?done=` or `?error=`; `ProofTooOld` goes to the fresh
 * proof and back). A user only ever reaches their own factors: a passkey id is looked up and its owner
 * checked, another user's id answers as an unknown one.
 */
import { MissingDependency } from "../../errors.js"
import { text } from "../../messages/text.js"
import type { TotpEnrollment } from "../../steps/totp.js"
import { type Handled, type RequestContext, param } from "../http/context.js"
import { csrfState } from "../http/csrf.js"
import { pageNonce } from "../http/pages/csp.js"
import { NO_CACHE, jsonWithCookies } from "../http/respond.js"
import type { Route } from "../../types/route.js"
import { stateKey } from "../limits/server-state.js"
import { accountsOf } from "../sessions/accounts.js"
import { safeAdapter } from "../sessions/adapter.js"
import type { SignedIn } from "../sessions/signed-in.js"
import { done, doneText, languageOf, page, refusalOf, refuse, refusedText, requireUser, wantsJson } from "./answers.js"
import { hasFreshProof } from "./fresh-proof.js"
import { renderFactorsPage, renderRecoveryCodesPage, renderTotpEnrolPage } from "./pages.js"
import { cleanPasskeyName, deletePasskey, namePasskey, ownPasskey, passkeysOf } from "./passkeys.js"
import { issueRecoveryCodes, recoveryCodesLeft } from "./recovery-codes.js"
import { activeTotpSecret, pendingTotpSecret, removeTotpSecret, setActiveTotpSecret, setPendingTotpSecret } from "./totp-secrets.js"

/** One change to a user's ways of signing in at a time (the lock `unlinkAccount` takes too). */
const CHANGE_LOCK_MS = 10_000

async function listFactors(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const [totp, passkeys, left] = await Promise.all([
    activeTotpSecret(ctx.config, who.userId),
    passkeysOf(ctx.config, who.userId),
    recoveryCodesLeft(ctx.config, who.userId),
  ])
  if (wantsJson(ctx)) {
    return { response: jsonWithCookies({ totp: totp !== null, passkeys, recoveryCodesLeft: left }, [...who.cookies], 200, NO_CACHE) }
  }
  const query = ctx.req.url.searchParams
  const { language } = languageOf(ctx)
  const error = refusalOf(query.get("error"))
  const doneMessage = doneText(language, query.get("done"))
  const message =
    error !== undefined
      ? { kind: "error" as const, text: refusedText(language, error) }
      : doneMessage !== undefined
        ? { kind: "done" as const, text: doneMessage }
        : undefined
  const confirmLast = error === "LastSignInMethod" ? (query.get("id") ?? undefined) : undefined
  const csrf = csrfState(ctx)
  const nonce = pageNonce()
  const markup = renderFactorsPage({
    totp: totp !== null,
    passkeys,
    recoveryCodesLeft: left,
    authUrl: ctx.authUrl,
    csrfToken: csrf.token,
    ...(message ? { message } : {}),
    ...(confirmLast ? { confirmLast } : {}),
    theme: ctx.config.theme,
    nonce,
    language,
  })
  return page(ctx, who, nonce, markup, csrf.cookie)
}

/** The name an authenticator app shows for the account: the user's email, else name, else id. */
async function accountName(ctx: RequestContext, who: SignedIn): Promise<string> {
  const fromToken = who.payload?.email ?? who.payload?.name
  if (typeof fromToken === "string" && fromToken !== "") return fromToken
  const user = ctx.config.adapter ? await safeAdapter(ctx.config.adapter, ctx.config.logger).getUser(who.userId) : null
  return user?.email || user?.name || who.userId
}

/**
 * The enrolment's QR code (SVG), or null when the optional `qrcode` package is not installed: the
 * secret as text still enrols, and the log says what to install.
 */
async function qrOf(ctx: RequestContext, enrolment: TotpEnrollment): Promise<string | null> {
  try {
    return await enrolment.qrSvg()
  } catch (err) {
    ctx.config.logger.error(new MissingDependency("The TOTP enrolment page shows no QR code: npm install qrcode", { err }))
    return null
  }
}

async function enrolPage(ctx: RequestContext, who: SignedIn, enrolment: TotpEnrollment, message?: string): Promise<Handled> {
  const csrf = csrfState(ctx)
  const nonce = pageNonce()
  const markup = renderTotpEnrolPage({
    qrSvg: await qrOf(ctx, enrolment),
    secret: enrolment.secret,
    authUrl: ctx.authUrl,
    csrfToken: csrf.token,
    ...(message ? { message } : {}),
    theme: ctx.config.theme,
    nonce,
    language: languageOf(ctx).language,
  })
  return page(ctx, who, nonce, markup, csrf.cookie)
}

/** The enrolment of `secret` (a new one when left out) for the signed-in user. */
async function enrolmentOf(ctx: RequestContext, who: SignedIn, secret?: string): Promise<TotpEnrollment> {
  const issuer = ctx.config.factors.issuer ?? new URL(ctx.origin).host
  // the TOTP module is loaded when a user first enrols or confirms, not by every app that imports authchart
  const { createTotpEnrollment } = await import("../../steps/totp.js")
  return createTotpEnrollment({ accountName: await accountName(ctx, who), issuer, ...(secret ? { secret } : {}) })
}

/** New recovery codes, shown this once under `heading`. */
function codesPage(
  ctx: RequestContext,
  who: SignedIn,
  codes: readonly string[],
  heading: "factors.codes.enrolled" | "factors.codes.new",
): Handled {
  const { language } = languageOf(ctx)
  const nonce = pageNonce()
  const markup = renderRecoveryCodesPage({
    codes,
    heading: text(language, heading),
    authUrl: ctx.authUrl,
    theme: ctx.config.theme,
    nonce,
    language,
  })
  return page(ctx, who, nonce, markup)
}

async function startTotp(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  if ((await activeTotpSecret(ctx.config, who.userId)) !== null) return refuse(ctx, who, "TotpActive")
  const enrolment = await enrolmentOf(ctx, who)
  await setPendingTotpSecret(ctx.config, who.userId, enrolment.secret, ctx.now)
  if (wantsJson(ctx)) {
    const body = { secret: enrolment.secret, uri: enrolment.uri, qrSvg: await qrOf(ctx, enrolment) }
    return { response: jsonWithCookies(body, [...who.cookies], 200, NO_CACHE) }
  }
  return enrolPage(ctx, who, enrolment)
}

async function confirmTotp(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const pending = await pendingTotpSecret(ctx.config, who.userId)
  if (pending === null) return refuse(ctx, who, "NoEnrolment")
  const code = (param(ctx.req, "code") ?? "").trim()
  const { verifyTotp } = await import("../../steps/totp.js")
  const step = verifyTotp(pending, code, ctx.now)
  // the code's time step is used up, as at sign-in (the same key as totpStep's): it cannot sign in next
  const fresh = step !== null && (await ctx.config.serverState.claim(stateKey("totp", who.userId, step), (step + 2) * 30_000 - ctx.now))
  if (!fresh) {
    if (wantsJson(ctx)) return refuse(ctx, who, "InvalidCode")
    return enrolPage(ctx, who, await enrolmentOf(ctx, who, pending), refusedText(languageOf(ctx).language, "InvalidCode"))
  }
  await setActiveTotpSecret(ctx.config, who.userId, pending, ctx.now)
  const recoveryCodes = await issueRecoveryCodes(ctx.config, who.userId)
  if (wantsJson(ctx)) return { response: jsonWithCookies({ totp: true, recoveryCodes }, [...who.cookies], 200, NO_CACHE) }
  return codesPage(ctx, who, recoveryCodes, "factors.codes.enrolled")
}

async function removeTotp(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  if ((await activeTotpSecret(ctx.config, who.userId)) === null) return refuse(ctx, who, "FactorNotFound")
  if (!(await hasFreshProof(ctx, who))) return refuse(ctx, who, "ProofTooOld")
  await removeTotpSecret(ctx.config, who.userId)
  return done(ctx, who, { totp: false }, "totp-removed")
}

async function renamePasskey(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const id = param(ctx.req, "id") ?? ""
  if (!(await ownPasskey(ctx.config, who.userId, id))) return refuse(ctx, who, "FactorNotFound")
  const name = cleanPasskeyName(param(ctx.req, "name") ?? "")
  if (name === "") return refuse(ctx, who, "InvalidName")
  await namePasskey(ctx.config, who.userId, id, name)
  return done(ctx, who, { renamed: true }, "passkey-renamed")
}

/** Whether the user keeps a way to sign in without the passkey `dropping`. */
async function keepsASignIn(ctx: RequestContext, userId: string, dropping: string): Promise<boolean> {
  const { config } = ctx
  if ((await passkeysOf(config, userId)).some((key) => key.id !== dropping)) return true
  if ((await accountsOf(config, userId)).length > 0) return true
  const user = config.adapter ? await safeAdapter(config.adapter, config.logger).getUser(userId) : null
  if (!user) return false
  const email = [...config.providers.values()].some((p) => p.type === "email")
  if (email && typeof user.email === "string" && user.email !== "") return true
  return (await config.accounts.hasOtherSignIn?.(user)) === true
}

async function removePasskey(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  const id = param(ctx.req, "id") ?? ""
  const row = await ownPasskey(ctx.config, who.userId, id)
  if (!row) return refuse(ctx, who, "FactorNotFound")
  if (!(await hasFreshProof(ctx, who))) return refuse(ctx, who, "ProofTooOld")
  const lock = stateKey("unlink", who.userId)
  if (!(await ctx.config.serverState.claim(lock, CHANGE_LOCK_MS))) return refuse(ctx, who, "Busy")
  try {
    if (param(ctx.req, "confirm") !== "last" && !(await keepsASignIn(ctx, who.userId, id))) {
      return refuse(ctx, who, "LastSignInMethod", { id })
    }
    await deletePasskey(ctx.config, who.userId, row)
  } finally {
    await ctx.config.serverState.reset(lock).catch(() => undefined)
  }
  return done(ctx, who, { deleted: true }, "passkey-deleted")
}

async function regenerateRecoveryCodes(ctx: RequestContext): Promise<Handled> {
  const who = await requireUser(ctx)
  if ("response" in who) return who
  if (!(await hasFreshProof(ctx, who))) return refuse(ctx, who, "ProofTooOld")
  const recoveryCodes = await issueRecoveryCodes(ctx.config, who.userId)
  if (wantsJson(ctx)) return { response: jsonWithCookies({ recoveryCodes }, [...who.cookies], 200, NO_CACHE) }
  return codesPage(ctx, who, recoveryCodes, "factors.codes.new")
}

/** The route rows of second-factor management. */
export const factorRoutes: readonly Route[] = [
  { method: "GET", action: "factors", provider: false, handle: listFactors },
  { method: "POST", action: "totp-enrol", provider: false, csrf: true, handle: startTotp },
  { method: "POST", action: "totp-confirm", provider: false, csrf: true, handle: confirmTotp },
  { method: "POST", action: "totp-remove", provider: false, csrf: true, handle: removeTotp },
  { method: "POST", action: "passkey-rename", provider: false, csrf: true, handle: renamePasskey },
  { method: "POST", action: "passkey-delete", provider: false, csrf: true, handle: removePasskey },
  { method: "POST", action: "recovery-codes", provider: false, csrf: true, handle: regenerateRecoveryCodes },
]
