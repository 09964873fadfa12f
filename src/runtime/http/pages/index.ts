/**
 * The built-in pages: plain server-rendered HTML strings, every value escaped, rendered from validated
 * props only (never from the query string), with links built from the origin and base path.
 *
 * @module
 */
export { attr, cssColor, escapeHtml, html, imageOrigins, imageUrl, layout } from "./html.js"
export type { HtmlValue, LayoutProps, SafeHtml } from "./html.js"
export { renderSignIn, signInErrorMessage, signInImageOrigins, signInPolicyOrigins } from "./signin.js"
export type { PageProvider, SignInPageProps } from "./signin.js"
export { renderSignOut } from "./signout.js"
export type { SignOutPageProps } from "./signout.js"
export { renderVerifyRequest } from "./verify-request.js"
export type { VerifyRequestPageProps } from "./verify-request.js"
export { renderError } from "./error.js"
export type { ErrorPage, ErrorPageProps } from "./error.js"
