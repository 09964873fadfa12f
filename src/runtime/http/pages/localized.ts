/**
 * A catalogue's text as markup: the text escaped, its placeholders filled with markup or escaped text
 * (e.g. an address in `<strong>`).
 */
import type { MessageKey } from "../../../messages/en.js"
import { en } from "../../../messages/en.js"
import type { Language, Placeholders } from "../../../messages/text.js"
import { type HtmlValue, type SafeHtml, appMarkup, escapeHtml, html } from "./html.js"

const PLACEHOLDER = /\{(\w+)\}/g

/**
 * The text of `key` in `language` as markup: the text escaped, each `{name}` replaced by `params[name]`
 * (escaped unless it is itself markup).
 *
 * @example markup(language, "emailCode.sentTo", { email: html`<strong>${email}</strong>` })
 */
export function markup<K extends MessageKey>(
  language: Language,
  key: K,
  params: { readonly [P in Placeholders<(typeof en)[K]>]: HtmlValue },
): SafeHtml {
  const template = language.messages[key] ?? en[key]
  const values: Readonly<Record<string, HtmlValue>> = params
  let out = ""
  let last = 0
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? ""
    out += escapeHtml(template.slice(last, match.index))
    out += Object.hasOwn(values, name) ? html`${values[name]}`.toString() : escapeHtml(match[0])
    last = match.index + match[0].length
  }
  return appMarkup(out + escapeHtml(template.slice(last)))
}
