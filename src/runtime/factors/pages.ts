/**
 * The second-factor pages, in the sign-in page's themed card: the list of a user's factors with its
 * forms, the TOTP enrolment (QR code, secret as text, the confirming code), and new recovery codes
 * (shown once). Every value is escaped by `html`; the QR code is the SVG the `qrcode` package made. Their
 * texts are the catalogue's `factors.*` keys (src/messages), in the request's language.
 */
import { type Language, plural, text } from "../../messages/text.js"
import type { Theme } from "../../types.js"
import { type SafeHtml, appMarkup, attr, html, layout } from "../http/pages/html.js"
import type { PasskeyInfo } from "./passkeys.js"

/** What the factors page shows: the user's factors and what the forms need. */
export interface FactorsPageProps {
  readonly totp: boolean
  readonly passkeys: readonly PasskeyInfo[]
  /** Recovery codes left, or null when the app keeps none (TOTP off and never issued). */
  readonly recoveryCodesLeft: number
  /** `<basePath>` as an absolute URL: where the forms post. */
  readonly authUrl: string
  readonly csrfToken: string
  /** A refusal or a done message to show above the list. */
  readonly message?: { readonly kind: "error" | "done"; readonly text: string }
  /**
   * A delete that would leave no way to sign in, waiting for the user's explicit confirmation: the
   * passkey's id, shown with a warning and a confirming form.
   */
  readonly confirmLast?: string
  readonly theme: Theme
  readonly nonce: string
  readonly language: Language
}

const CSS =
  ".card{width:30rem}.factor{border-top:1px solid var(--border);padding-top:1rem;margin-top:1rem}" +
  ".factor h2{font-size:1rem;margin:0 0 .5rem}.row{display:flex;gap:.5rem;align-items:center;margin-bottom:.5rem}" +
  ".row input{margin:0}.row button{width:auto}.done{background:var(--bg);border-radius:.375rem;padding:.5rem .75rem;margin-bottom:1rem}" +
  ".codes{font-family:ui-monospace,monospace;columns:2;padding-left:1.25rem}.secret{font-family:ui-monospace,monospace;word-break:break-all}" +
  ".qr svg{width:12rem;height:12rem;display:block;margin:0 auto 1rem;background:#fff}"

const hidden = (csrfToken: string) => html`<input type="hidden" name="csrfToken"${attr("value", csrfToken)}>`

function notice(message: FactorsPageProps["message"]): SafeHtml | null {
  if (!message) return null
  return message.kind === "error"
    ? html`<div class="error" role="alert"><p>${message.text}</p></div>`
    : html`<div class="done" role="status"><p>${message.text}</p></div>`
}

function passkeyRow(p: FactorsPageProps, key: PasskeyInfo): SafeHtml {
  const t = p.language
  const when = key.lastUsedAt ? `${key.lastUsedAt.slice(0, 16).replace("T", " ")} UTC` : undefined
  const used = when ? text(t, "factors.passkey.lastUsed", { when }) : text(t, "factors.passkey.notUsed")
  const warn =
    p.confirmLast === key.id
      ? html`<div class="error" role="alert"><p>${text(t, "factors.passkey.lastWarning")}</p></div><form method="POST"${attr("action", `${p.authUrl}/passkey-delete`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><input type="hidden" name="confirm" value="last"><button type="submit" class="confirm-delete">${text(t, "factors.passkey.deleteAnyway")}</button></form>`
      : null
  return html`<li class="passkey"${attr("data-id", key.id)}><p><strong class="passkey-name">${key.name ?? text(t, "factors.passkey.unnamed")}</strong><br><span class="hint">${used}</span></p><form class="row" method="POST"${attr("action", `${p.authUrl}/passkey-rename`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><input name="name"${attr("aria-label", text(t, "factors.passkey.newName"))} maxlength="64" required${attr("value", key.name ?? "")}><button type="submit" class="rename">${text(t, "factors.passkey.rename")}</button></form><form method="POST"${attr("action", `${p.authUrl}/passkey-delete`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><button type="submit" class="delete">${text(t, "factors.passkey.delete")}</button></form>${warn}</li>`
}

/** The factors page: authenticator app, passkeys, recovery codes, each with its forms. */
export function renderFactorsPage(p: FactorsPageProps): string {
  const t = p.language
  const totp = p.totp
    ? html`<p id="totp-status" data-on="true">${text(t, "factors.totp.on")}</p><form method="POST"${attr("action", `${p.authUrl}/totp-remove`)}>${hidden(p.csrfToken)}<button type="submit" id="totp-remove">${text(t, "factors.totp.remove")}</button></form>`
    : html`<p id="totp-status" data-on="false">${text(t, "factors.totp.off")}</p><form method="POST"${attr("action", `${p.authUrl}/totp-enrol`)}>${hidden(p.csrfToken)}<button type="submit" id="totp-enrol">${text(t, "factors.totp.enrol")}</button></form>`
  const passkeys =
    p.passkeys.length > 0
      ? html`<ul class="passkeys">${p.passkeys.map((key) => passkeyRow(p, key))}</ul>`
      : html`<p class="hint" id="no-passkeys">${text(t, "factors.passkeys.none")}</p>`
  const recovery = html`<p id="recovery-left"${attr("data-left", p.recoveryCodesLeft)}>${plural(t, "factors.recovery.left", p.recoveryCodesLeft)}</p><form method="POST"${attr("action", `${p.authUrl}/recovery-codes`)}>${hidden(p.csrfToken)}<button type="submit" id="recovery-regenerate">${text(t, "factors.recovery.regenerate")}</button></form>`
  const title = text(t, "factors.title")
  return layout({
    title,
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    language: t,
    body: html`<div class="factors"><div class="card"><h1>${title}</h1>${notice(p.message)}<section class="factor" id="totp"><h2>${text(t, "factors.totp.heading")}</h2>${totp}</section><section class="factor" id="passkeys"><h2>${text(t, "factors.passkeys.heading")}</h2>${passkeys}</section><section class="factor" id="recovery"><h2>${text(t, "factors.recovery.heading")}</h2>${recovery}</section></div></div>`,
  })
}

/** What the enrolment page shows. */
export interface TotpEnrolPageProps {
  /** The QR code of the `otpauth://` URI, SVG markup from the `qrcode` package; null without it (the secret as text only). */
  readonly qrSvg: string | null
  readonly secret: string
  readonly authUrl: string
  readonly csrfToken: string
  readonly message?: string
  readonly theme: Theme
  readonly nonce: string
  readonly language: Language
}

/** The enrolment page: scan the QR code (or type the secret), then prove it with a code. */
export function renderTotpEnrolPage(p: TotpEnrolPageProps): string {
  const t = p.language
  const title = text(t, "factors.enrol.title")
  return layout({
    title,
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    language: t,
    // the QR code is the qrcode package's SVG of a URI this server made: markup of its own, no request data
    body: html`<div class="factors"><div class="card"><h1>${title}</h1>${p.message ? html`<div class="error" role="alert"><p>${p.message}</p></div>` : null}<p>${text(t, "factors.enrol.scan")}</p>${p.qrSvg === null ? null : html`<div class="qr">${appMarkup(p.qrSvg)}</div>`}<p class="secret" id="totp-secret">${p.secret}</p><form method="POST"${attr("action", `${p.authUrl}/totp-confirm`)}>${hidden(p.csrfToken)}<label for="totp-code">${text(t, "factors.enrol.label")}</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus><button type="submit" id="totp-confirm">${text(t, "factors.enrol.submit")}</button></form><p class="cancel"><a${attr("href", `${p.authUrl}/factors`)}>${text(t, "factors.enrol.cancel")}</a></p></div></div>`,
  })
}

/** What the recovery codes page shows. */
export interface RecoveryCodesPageProps {
  readonly codes: readonly string[]
  /** Why the codes are shown (the catalogue's "Authenticator app is on"). */
  readonly heading: string
  readonly authUrl: string
  readonly theme: Theme
  readonly nonce: string
  readonly language: Language
}

/** New recovery codes, shown this once. */
export function renderRecoveryCodesPage(p: RecoveryCodesPageProps): string {
  const t = p.language
  return layout({
    title: text(t, "factors.codes.title"),
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    language: t,
    body: html`<div class="factors"><div class="card"><h1>${p.heading}</h1><p>${text(t, "factors.codes.keep")}</p><ul class="codes" id="recovery-codes">${p.codes.map((code) => html`<li>${code}</li>`)}</ul><p class="cancel"><a id="factors-link"${attr("href", `${p.authUrl}/factors`)}>${text(t, "factors.codes.done")}</a></p></div></div>`,
  })
}
