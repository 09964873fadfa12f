import type { Theme } from "../../../types.js"
import { english, type Language, text } from "../../../messages/text.js"
import { attr, html, layout, type SafeHtml } from "./html.js"

/** Input of {@link renderError}. */
export interface ErrorPageProps {
  /** Error code from `?error=`; unknown codes render the generic page. */
  error?: string
  /** The site's home, usually its origin. */
  homeUrl: string
  /** `{origin}{basePath}/signin`, built by the runtime (never from the request URL). */
  signInUrl: string
  theme: Theme
  /** The response's CSP nonce. */
  nonce: string
  /** The language the page is drawn in. Default English. */
  language?: Language
}

/** A rendered error page and the status it is served with. */
export interface ErrorPage {
  status: number
  html: string
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

interface Content {
  status: number
  heading: string
  message: SafeHtml
}

function content(error: string | undefined, homeUrl: string, signInUrl: string, language: Language): Content {
  const t = (key: Parameters<typeof text>[1] & `error.${string}`) => text(language, key)
  const signIn = html`<p><a class="button"${attr("href", signInUrl)}>${t("error.signIn")}</a></p>`
  switch (error) {
    case "Configuration":
      return {
        status: 500,
        heading: t("error.Configuration.heading"),
        message: html`<p>${t("error.Configuration.message")}</p><p>${t("error.Configuration.hint")}</p>`,
      }
    case "AccessDenied":
      return {
        status: 403,
        heading: t("error.AccessDenied.heading"),
        message: html`<p>${t("error.AccessDenied.message")}</p>${signIn}`,
      }
    case "Verification":
      return {
        status: 403,
        heading: t("error.Verification.heading"),
        message: html`<p>${t("error.Verification.message")}</p><p>${t("error.Verification.hint")}</p>${signIn}`,
      }
    default:
      return {
        status: 200,
        heading: t("error.default.heading"),
        message: html`<p><a class="site"${attr("href", homeUrl)}>${hostOf(homeUrl)}</a></p>`,
      }
  }
}

/**
 * The built-in error page, as Auth.js': `Configuration` → 500, `AccessDenied` and `Verification` → 403
 * with a "Sign in" link to `signInUrl`, anything else → 200 with a link home.
 *
 * @example
 * const { status, html } = renderError({ error: "AccessDenied", homeUrl, signInUrl, theme: {}, nonce }) // status 403
 */
export function renderError({ error, homeUrl, signInUrl, theme, nonce, language = english }: ErrorPageProps): ErrorPage {
  const { status, heading, message } = content(error, homeUrl, signInUrl, language)
  return {
    status,
    html: layout({
      title: text(language, "error.title"),
      theme,
      language,
      nonce,
      body: html`<div class="error-page"><div class="card"><h1>${heading}</h1><div class="message">${message}</div></div></div>`,
    }),
  }
}
