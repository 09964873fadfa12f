/**
 * The second-factor pages, in the sign-in page's themed card: the list of a user's factors with its
 * forms, the TOTP enrolment (QR code, secret as text, the confirming code), and new recovery codes
 * (shown once). Every value is escaped by `html`; the QR code is the SVG the `qrcode` package made.
 */
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
  const used = key.lastUsedAt ? `Last used ${key.lastUsedAt.slice(0, 16).replace("T", " ")} UTC` : "Not used yet"
  const warn =
    p.confirmLast === key.id
      ? html`<div class="error" role="alert"><p>This passkey is your last way to sign in. Delete it only if you have another way back in.</p></div><form method="POST"${attr("action", `${p.authUrl}/passkey-delete`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><input type="hidden" name="confirm" value="last"><button type="submit" class="confirm-delete">Delete anyway</button></form>`
      : null
  return html`<li class="passkey"${attr("data-id", key.id)}><p><strong class="passkey-name">${key.name ?? "Unnamed passkey"}</strong><br><span class="hint">${used}</span></p><form class="row" method="POST"${attr("action", `${p.authUrl}/passkey-rename`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><input name="name" aria-label="New name" maxlength="64" required${attr("value", key.name ?? "")}><button type="submit">Rename</button></form><form method="POST"${attr("action", `${p.authUrl}/passkey-delete`)}>${hidden(p.csrfToken)}<input type="hidden" name="id"${attr("value", key.id)}><button type="submit" class="delete">Delete</button></form>${warn}</li>`
}

/** The factors page: authenticator app, passkeys, recovery codes, each with its forms. */
export function renderFactorsPage(p: FactorsPageProps): string {
  const totp = p.totp
    ? html`<p id="totp-status">On</p><form method="POST"${attr("action", `${p.authUrl}/totp-remove`)}>${hidden(p.csrfToken)}<button type="submit" id="totp-remove">Turn off</button></form>`
    : html`<p id="totp-status">Off</p><form method="POST"${attr("action", `${p.authUrl}/totp-enrol`)}>${hidden(p.csrfToken)}<button type="submit" id="totp-enrol">Set up an authenticator app</button></form>`
  const passkeys =
    p.passkeys.length > 0
      ? html`<ul class="passkeys">${p.passkeys.map((key) => passkeyRow(p, key))}</ul>`
      : html`<p class="hint" id="no-passkeys">No passkeys.</p>`
  const recovery = html`<p id="recovery-left">${p.recoveryCodesLeft} recovery ${p.recoveryCodesLeft === 1 ? "code" : "codes"} left</p><form method="POST"${attr("action", `${p.authUrl}/recovery-codes`)}>${hidden(p.csrfToken)}<button type="submit" id="recovery-regenerate">Get new recovery codes</button></form>`
  return layout({
    title: "Sign-in and security",
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    body: html`<div class="factors"><div class="card"><h1>Sign-in and security</h1>${notice(p.message)}<section class="factor" id="totp"><h2>Authenticator app</h2>${totp}</section><section class="factor" id="passkeys"><h2>Passkeys</h2>${passkeys}</section><section class="factor" id="recovery"><h2>Recovery codes</h2>${recovery}</section></div></div>`,
  })
}

/** What the enrolment page shows. */
export interface TotpEnrolPageProps {
  /** The QR code of the `otpauth://` URI, SVG markup from the `qrcode` package. */
  readonly qrSvg: string
  readonly secret: string
  readonly authUrl: string
  readonly csrfToken: string
  readonly message?: string
  readonly theme: Theme
  readonly nonce: string
}

/** The enrolment page: scan the QR code (or type the secret), then prove it with a code. */
export function renderTotpEnrolPage(p: TotpEnrolPageProps): string {
  return layout({
    title: "Set up an authenticator app",
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    // the QR code is the qrcode package's SVG of a URI this server made: markup of its own, no request data
    body: html`<div class="factors"><div class="card"><h1>Set up an authenticator app</h1>${p.message ? html`<div class="error" role="alert"><p>${p.message}</p></div>` : null}<p>Scan this code with your authenticator app, or enter the key below.</p><div class="qr">${appMarkup(p.qrSvg)}</div><p class="secret" id="totp-secret">${p.secret}</p><form method="POST"${attr("action", `${p.authUrl}/totp-confirm`)}>${hidden(p.csrfToken)}<label for="totp-code">Code from the app</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus><button type="submit" id="totp-confirm">Turn on</button></form><p class="cancel"><a${attr("href", `${p.authUrl}/factors`)}>Cancel</a></p></div></div>`,
  })
}

/** What the recovery codes page shows. */
export interface RecoveryCodesPageProps {
  readonly codes: readonly string[]
  /** Why the codes are shown ("Authenticator app is on."). */
  readonly heading: string
  readonly authUrl: string
  readonly theme: Theme
  readonly nonce: string
}

/** New recovery codes, shown this once. */
export function renderRecoveryCodesPage(p: RecoveryCodesPageProps): string {
  return layout({
    title: "Your recovery codes",
    theme: p.theme,
    nonce: p.nonce,
    css: CSS,
    body: html`<div class="factors"><div class="card"><h1>${p.heading}</h1><p>Keep these recovery codes somewhere safe. Each one signs you in once if you lose your authenticator app. They are shown only now.</p><ul class="codes" id="recovery-codes">${p.codes.map((code) => html`<li>${code}</li>`)}</ul><p class="cancel"><a id="factors-link"${attr("href", `${p.authUrl}/factors`)}>Done</a></p></div></div>`,
  })
}
