import type { Theme } from "../../../types.js"
import { english, type Language } from "../../../messages/text.js"

import type { SafeHtml } from "../../../types/html.js"
export type { SafeHtml }

/**
 * What {@link html} accepts between `${}`: text is escaped; `null`, `undefined` and `false` vanish.
 * @example html`<ul>${items.map((item) => html`<li>${item}</li>`)}</ul>${error && html`<p>${error}</p>`}`
 */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

class Markup {
  constructor(private readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const trusted = (value: string): SafeHtml => new Markup(value) as unknown as SafeHtml

/**
 * Markup the application wrote itself (a step page's fields), taken as is: the app escapes what it
 * interpolates, as it would in a whole page of its own. Never for request data.
 */
export const appMarkup = (markup: string): SafeHtml => trusted(markup)

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }
const SPECIAL = /[&<>"']/
const SPECIALS = /[&<>"']/g

/**
 * Escapes `& < > " '`, which makes `text` safe both as element content and as a quoted attribute value.
 *
 * @example escapeHtml(`"><img src=x>`) // "&quot;&gt;&lt;img src=x&gt;"
 */
export function escapeHtml(text: string): string {
  // most values (tokens, URLs, nonces, titles) have nothing to escape: no replace pass for them
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ENTITIES[c] ?? c) : text
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return ""
  if (value instanceof Markup) return value.toString()
  if (Array.isArray(value)) return value.map(render).join("")
  return escapeHtml(String(value))
}

/**
 * Tagged template for markup: every interpolated value is escaped unless it is itself {@link SafeHtml}.
 *
 * @example html`<p>${name}</p>` // name = "<b>" → "<p>&lt;b&gt;</p>"
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "")
  return trusted(out)
}

/**
 * One attribute with a leading space: `true` gives a bare boolean attribute, `false`/`null`/`undefined`
 * give nothing, anything else becomes an escaped, double-quoted value. `name` must be a literal.
 *
 * @example html`<input${attr("value", email)}${attr("required", true)}>`
 */
export function attr(name: string, value: string | number | boolean | null | undefined): SafeHtml {
  if (value === null || value === undefined || value === false) return trusted("")
  if (value === true) return trusted(` ${name}`)
  return trusted(` ${name}="${escapeHtml(String(value))}"`)
}

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i
const FUNC = /^(?:rgba?|hsla?)\(\s*[0-9.%+\-\s,/a-z]*\)$/i
const NAMED = /^[a-z]{3,20}$/i

/**
 * `value` if it is a plain CSS colour (hex, `rgb()`/`rgba()`/`hsl()`/`hsla()` or a named colour),
 * otherwise `undefined`. Nothing that could close a declaration, rule or `<style>` element passes.
 *
 * @example cssColor("#346df1") // "#346df1";  cssColor("red;}</style>") // undefined
 */
export function cssColor(value: string | undefined): string | undefined {
  if (!value) return undefined
  const v = value.trim()
  return HEX.test(v) || FUNC.test(v) || NAMED.test(v) ? v : undefined
}

/**
 * `value` if it is an absolute `http(s)` URL or a same-origin path starting with a single `/`,
 * otherwise `undefined`. Used for logo images.
 */
export function imageUrl(value: string | undefined): string | undefined {
  if (!value) return undefined
  if (value.startsWith("/")) return value.startsWith("//") || value.startsWith("/\\") ? undefined : value
  try {
    const { protocol } = new URL(value)
    return protocol === "https:" || protocol === "http:" ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The origins of the images among `urls` that {@link imageUrl} accepts and that live on another origin
 * (a `/` path is the page's own), for a page's `img-src`.
 *
 * @example imageOrigins(["https://cdn.example/logo.svg", "/logo.png"]) // ["https://cdn.example"]
 */
export function imageOrigins(urls: readonly (string | undefined)[]): string[] {
  const out = new Set<string>()
  for (const url of urls) {
    const valid = imageUrl(url)
    if (valid && !valid.startsWith("/")) out.add(new URL(valid).origin)
  }
  return [...out]
}

const LIGHT = "--bg:#f3f4f6;--card:#fff;--text:#111827;--muted:#6b7280;--border:#d1d5db;--error:#b91c1c;--error-bg:#fef2f2"
const DARK = "--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#8b949e;--border:#30363d;--error:#fca5a5;--error-bg:#3b1219"

const CSS = [
  ":root{--brand-color:#346df1;--button-text-color:#fff}",
  `.__next-auth-theme-auto,.__next-auth-theme-light{${LIGHT}}`,
  `.__next-auth-theme-dark{${DARK}}`,
  `@media (prefers-color-scheme:dark){.__next-auth-theme-auto{${DARK}}}`,
  "*{box-sizing:border-box}",
  "body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,sans-serif}",
  ".page{min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1rem}",
  ".logo{max-width:150px;max-height:70px;margin-bottom:1.5rem}",
  ".card{width:22rem;max-width:100%;background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1.5rem}",
  "h1{font-size:1.25rem;margin:0 0 1rem}p{margin:0 0 1rem}",
  "hr{border:0;border-top:1px solid var(--border);margin:1.25rem 0}",
  "label{display:block;margin-bottom:.25rem;font-weight:500}",
  "input{display:block;width:100%;margin-bottom:.75rem;padding:.5rem .75rem;font:inherit;color:var(--text);background:var(--card);border:1px solid var(--border);border-radius:.375rem}",
  "button,.button{display:flex;width:100%;align-items:center;justify-content:center;gap:.5rem;padding:.6rem 1rem;font:inherit;font-weight:500;text-decoration:none;cursor:pointer;border:1px solid var(--border);border-radius:.375rem;background:var(--brand-color);color:var(--button-text-color)}",
  ".provider+.provider{margin-top:.75rem}",
  ".provider button+button{margin-top:.5rem}",
  ".provider .button{background:var(--provider-brand-color,var(--card));color:var(--provider-text-color,var(--text))}",
  ".error{color:var(--error);background:var(--error-bg);border-radius:.375rem;padding:.5rem .75rem;margin-bottom:1rem}",
  ".error p{margin:0}a.site,.cancel a{color:var(--brand-color)}",
  ".hint{color:var(--muted);font-size:.875rem}.cancel{margin:1rem 0 0;text-align:center;font-size:.875rem}",
].join("")

function themeCss(theme: Theme): string {
  const brand = cssColor(theme.brandColor)
  const text = cssColor(theme.buttonText)
  if (!brand && !text) return ""
  return `:root{${brand ? `--brand-color:${brand};` : ""}${text ? `--button-text-color:${text};` : ""}}`
}

/** Input of {@link layout}. */
export interface LayoutProps {
  /** Text of `<title>`; escaped. */
  title: string
  theme: Theme
  /** The page's language: its tag is `<html lang>`. Default English. */
  language?: Language
  /** The page content, placed in `<div class="page">` after the logo. */
  body: SafeHtml
  /** Extra markup for `<head>` (e.g. a script tag carrying `nonce`). */
  head?: SafeHtml
  /** The response's CSP nonce, put on the `<style>` element (the page's policy allows nothing else). */
  nonce: string
  /**
   * Extra CSS rules appended to the page's style element. Only from validated values ({@link cssColor}):
   * nothing here may close the element.
   */
  css?: string
}

/** {@link layout}'s document around the two things that vary: `open` + escaped nonce + `afterNonce` + body + `close`. */
export interface LayoutParts {
  /** The document up to the `<style>` element's nonce value. */
  readonly open: string
  /** From after the nonce to the start of the body content (CSS, title, head, theme class, logo). */
  readonly afterNonce: string
  readonly close: string
}

const layoutOpen = (locale: string): string =>
  `<!DOCTYPE html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style nonce="`
const LAYOUT_OPEN_EN = layoutOpen("en")
const LAYOUT_CLOSE = "</div></body></html>"

/**
 * {@link layout} without its body and nonce, for a page drawn many times with the same title and theme
 * (a step's page): everything here is escaped or validated as {@link layout} does.
 *
 * @example const { open, afterNonce, close } = layoutParts({ title: "Code", theme }); const page = open + escapeHtml(nonce) + afterNonce + body + close
 */
export function layoutParts({ title, theme, head, css, language = english }: Omit<LayoutProps, "body" | "nonce">): LayoutParts {
  const scheme = theme.colorScheme === "dark" || theme.colorScheme === "light" ? theme.colorScheme : "auto"
  const logo = imageUrl(theme.logo)
  const style = trusted(CSS + themeCss(theme) + (css ?? "").replace(/</g, ""))
  const afterNonce = html`">${style}</style><title>${title}</title>${head}</head><body class="__next-auth-theme-${scheme}"><div class="page">${
    logo ? html`<img class="logo" src="${logo}" alt="Logo">` : null
  }`
  const open = language.locale === "en" ? LAYOUT_OPEN_EN : layoutOpen(language.locale)
  return { open, afterNonce: afterNonce.toString(), close: LAYOUT_CLOSE }
}

/**
 * The whole HTML document of a built-in page, in the Auth.js shape: inlined CSS, body class
 * `__next-auth-theme-{colorScheme}`, content in `<div class="page">`. `theme.brandColor` and
 * `theme.buttonText` apply only when they are valid CSS colours ({@link cssColor}); `theme.logo` only
 * when it is an http(s) URL or a `/` path ({@link imageUrl}). The one `<style>` element carries `nonce`.
 *
 * @example layout({ title: "Sign Out", theme: {}, nonce, body: html`<p>Bye</p>` })
 */
export function layout(props: LayoutProps): string {
  const { open, afterNonce, close } = layoutParts(props)
  return open + escapeHtml(String(props.nonce)) + afterNonce + props.body.toString() + close
}
