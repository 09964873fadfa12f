import type { Theme } from "../../../types.js"
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
}

/**
 * The built-in "check your email" page shown after a magic link was sent, as Auth.js'.
 *
 * @example renderVerifyRequest({ homeUrl: "https://app.example", host: "app.example", theme: {}, nonce })
 */
export function renderVerifyRequest({ homeUrl, host, theme, nonce }: VerifyRequestPageProps): string {
  return layout({
    title: "Verify Request",
    theme,
    nonce,
    body: html`<div class="verify-request"><div class="card"><h1>Check your email</h1><p>A sign in link has been sent to your email address.</p><p><a class="site"${attr("href", homeUrl)}>${host}</a></p></div></div>`,
  })
}
