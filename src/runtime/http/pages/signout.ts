import type { Theme } from "../../../types.js"
import { english, type Language, text } from "../../../messages/text.js"
import { attr, html, layout } from "./html.js"

/** Input of {@link renderSignOut}. */
export interface SignOutPageProps {
  csrfToken: string
  /** Where the form posts: `{origin}{basePath}/signout`. */
  action: string
  theme: Theme
  /** The response's CSP nonce. */
  nonce: string
  /** Providers the signed-in session can also be logged out at (a "Sign out of <name> too" button each). */
  logoutProviders?: readonly { id: string; name: string }[]
  /** The language the page is drawn in. Default English. */
  language?: Language
}

/**
 * The built-in sign-out confirmation page, as Auth.js': a form POST to `action` with the hidden
 * `csrfToken` and a "Sign out" button.
 *
 * @example renderSignOut({ csrfToken, action: "https://app.example/auth/signout", theme: {}, nonce })
 */
export function renderSignOut({ csrfToken, action, theme, nonce, logoutProviders = [], language = english }: SignOutPageProps): string {
  const atProvider = logoutProviders.map(
    (p) =>
      html`<button type="submit" name="provider"${attr("value", p.id)}>${text(language, "signout.atProvider", { provider: p.name })}</button>`,
  )
  return layout({
    title: text(language, "signout.title"),
    theme,
    nonce,
    language,
    body: html`<div class="signout"><div class="card"><h1>${text(language, "signout.heading")}</h1><p>${text(language, "signout.question")}</p><form${attr("action", action)} method="POST"><input type="hidden" name="csrfToken"${attr("value", csrfToken)}><button id="submitButton" type="submit">${text(language, "signout.submit")}</button>${atProvider}</form></div></div>`,
  })
}
