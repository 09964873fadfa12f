import type { Theme } from "../../../types.js"
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

function content(error: string | undefined, homeUrl: string, signInUrl: string): Content {
  const signIn = html`<p><a class="button"${attr("href", signInUrl)}>Sign in</a></p>`
  switch (error) {
    case "Configuration":
      return {
        status: 500,
        heading: "Server error",
        message: html`<p>There is a problem with the server configuration.</p><p>Check the server logs for more information.</p>`,
      }
    case "AccessDenied":
      return {
        status: 403,
        heading: "Access Denied",
        message: html`<p>You do not have permission to sign in.</p>${signIn}`,
      }
    case "Verification":
      return {
        status: 403,
        heading: "Unable to sign in",
        message: html`<p>The sign in link is no longer valid.</p><p>It may have been used already or it may have expired.</p>${signIn}`,
      }
    default:
      return {
        status: 200,
        heading: "Error",
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
export function renderError({ error, homeUrl, signInUrl, theme, nonce }: ErrorPageProps): ErrorPage {
  const { status, heading, message } = content(error, homeUrl, signInUrl)
  return {
    status,
    html: layout({
      title: "Error",
      theme,
      nonce,
      body: html`<div class="error-page"><div class="card"><h1>${heading}</h1><div class="message">${message}</div></div></div>`,
    }),
  }
}
