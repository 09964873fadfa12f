/**
 * Which language a page or email is drawn in: the config's `pages.locale` when it names one, else the
 * request's `Accept-Language` (RFC 9110 §12.5.4: the ranges by weight, each tried as given and then with
 * its last subtags cut, `de-AT` → `de`), else English. The languages are the built-in `en` and `de`,
 * replaced or joined by the config's `pages.messages`.
 */
import { de } from "../../messages/de.js"
import { en, type Messages } from "../../messages/en.js"
import type { Language } from "../../messages/text.js"
import type { PagesOptions } from "../../types.js"
import type { ResolvedLanguages } from "../../types/resolved.js"
import type { HeaderReader } from "./context.js"
import { KeptAnswers } from "./kept.js"

export type { ResolvedLanguages }

const BUILT_IN: Readonly<Record<string, Messages>> = { en, de }

/** `tag` in its canonical case (`pt-br` → `pt-BR`), or undefined when it is no BCP 47 tag. */
function canonical(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0]
  } catch {
    return undefined
  }
}

/**
 * The languages of `pages`: the built-ins, then the config's `messages`. `pages.locale` is looked up as
 * a request's range would be. A `TypeError` (at start-up) for a tag that is no BCP 47 language tag, or a
 * `locale` that names no language.
 */
export function resolveLanguages(pages: PagesOptions | undefined): ResolvedLanguages {
  const byTag = new Map<string, Language>()
  for (const [tag, messages] of Object.entries({ ...BUILT_IN, ...(pages?.messages ?? {}) })) {
    const locale = canonical(tag)
    if (!locale) throw new TypeError(`pages.messages: "${tag}" is not a BCP 47 language tag (e.g. "fr", "pt-BR").`)
    byTag.set(locale.toLowerCase(), Object.freeze({ locale, messages }))
  }
  const fallback = byTag.get("en") ?? Object.freeze({ locale: "en", messages: en })
  const fixed = pages?.locale === undefined ? undefined : lookup(byTag, pages.locale)
  if (pages?.locale !== undefined && !fixed) {
    const known = [...byTag.values()].map((l) => l.locale).join(", ")
    throw new TypeError(`pages.locale: "${pages.locale}" names no language of this config (${known}); add it to pages.messages.`)
  }
  return Object.freeze({ byTag, fixed, fallback, chosen: new KeptAnswers<Language>(256, 256) })
}

/** The language of `range` or of its shorter prefixes (`de-AT-x` → `de-AT` → `de`), if any is known. */
export function lookup(byTag: ReadonlyMap<string, Language>, range: string): Language | undefined {
  let tag = range.trim().toLowerCase()
  while (tag) {
    const found = byTag.get(tag)
    if (found) return found
    const cut = tag.lastIndexOf("-")
    if (cut < 0) return undefined
    tag = tag.slice(0, cut)
    // a single-letter subtag (`x`, `u`) introduces the next one: cut it too
    if (tag.length > 1 && tag[tag.length - 2] === "-") tag = tag.slice(0, -2)
  }
  return undefined
}

const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i
/** Ranges read from one header: the rest is left out. */
const MAX_RANGES = 24

/**
 * The language ranges of an `Accept-Language` value, best first (by weight, then in the order given);
 * `*` and ranges of weight 0 are left out, and so is a range with a malformed weight.
 *
 * @example acceptedRanges("de-AT, en;q=0.8, fr;q=0") // ["de-AT", "en"]
 */
export function acceptedRanges(header: string): string[] {
  const ranges: { range: string; q: number; at: number }[] = []
  for (const [at, part] of header.split(",").slice(0, MAX_RANGES).entries()) {
    const [rawRange = "", ...params] = part.split(";")
    const range = rawRange.trim()
    if (!range || range === "*" || !/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(range)) continue
    let q = 1
    for (const param of params) {
      const weight = WEIGHT.exec(param.trim())
      q = weight ? Number(weight[1]) : Number.NaN
    }
    if (q > 0) ranges.push({ range, q, at })
  }
  return ranges.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.range)
}

/**
 * The language a request is answered in, and whether that depends on its `Accept-Language` (then the
 * answer carries `Vary: Accept-Language`).
 *
 * @example chooseLanguage(config.languages, headers) // { language: { locale: "de", … }, negotiated: true }
 */
export function chooseLanguage(languages: ResolvedLanguages, headers: HeaderReader): { language: Language; negotiated: boolean } {
  if (languages.fixed) return { language: languages.fixed, negotiated: false }
  const header = headers.get("accept-language")
  if (!header) return { language: languages.fallback, negotiated: true }
  const kept = languages.chosen.get(header)
  if (kept) return { language: kept, negotiated: true }
  let language = languages.fallback
  for (const range of acceptedRanges(header)) {
    const found = lookup(languages.byTag, range)
    if (found) {
      language = found
      break
    }
  }
  return { language: languages.chosen.keep(header, language), negotiated: true }
}

/** The header field a negotiated answer carries. */
export const VARY_LANGUAGE: Readonly<Record<string, string>> = Object.freeze({ Vary: "Accept-Language" })

/**
 * The language of the request a flow's effect or route handler is serving (`pages.locale`, else its
 * `Accept-Language`, else English): for the texts it answers with or mails.
 *
 * @example const subject = text(requestLanguage(ctx), "magicLink.subject", { host })
 */
export function requestLanguage(ctx: {
  readonly config: { readonly languages: ResolvedLanguages }
  readonly req: { readonly headers: HeaderReader }
}): Language {
  return chooseLanguage(ctx.config.languages, ctx.req.headers).language
}
