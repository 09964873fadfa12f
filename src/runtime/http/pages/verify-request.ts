import type { Theme } from "../../../types.js"
import { english, type Language, text } from "../../../messages/text.js"
import { attr, html, layout } from "./html.js"

/** Input of {@link renderVerifyRequest}. */
export interface VerifyRequestPageProps {
  /** The site's home, usually its origin. */
  homeUrl: string
  /** Shown as the link text, e.g. `app.example`. */
  host: string
  theme: Theme
  /** The response's CSP nonce. */
  nonce: string
  /** The language the page is drawn in. Default English. */
  language?: Language
}

/**
 * The built-in "check your email" page shown after a magic link was sent, as Auth.js'.
 *
 * @example renderVerifyRequest({ homeUrl: "https://app.example", host: "app.example", theme: {}, nonce })
 */
export function renderVerifyRequest({ homeUrl, host, theme, nonce, language = english }: VerifyRequestPageProps): string {
  return layout({
    title: text(language, "verifyRequest.title"),
    theme,
    nonce,
    language,
    body: html`<div class="verify-request"><div class="card"><h1>${text(language, "verifyRequest.heading")}</h1><p>${text(language, "verifyRequest.sent")}</p><p><a class="site"${attr("href", homeUrl)}>${host}</a></p></div></div>`,
  })
}
