/**
 * Drawing a catalogue's text: `{name}` placeholders filled in, plural forms chosen by the language's
 * `Intl.PluralRules`.
 */
import { en, type MessageKey, type Messages } from "./en.js"

/**
 * The language a page or email is drawn in: its BCP 47 tag (the page's `lang`) and its catalogue.
 * @example const subject = (language: Language) => text(language, "magicLink.subject", { host: "app.example" })
 */
export interface Language {
  /** E.g. `"en"`, `"de"`, `"pt-BR"`. */
  readonly locale: string
  readonly messages: Messages
}

/**
 * English, the built-in catalogue: what every page is drawn in unless a language is chosen.
 * @example text(english, "emailCode.wrong", { count: 2 })
 */
export const english: Language = Object.freeze({ locale: "en", messages: en })

type English = typeof en

/** The placeholder names of a text: `"Hi {name}, {count} new"` → `"name" | "count"`. */
export type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never

/** The values a message's placeholders take (its English text names them). */
export type MessageParams<K extends MessageKey> = { readonly [P in Placeholders<English[K]>]: string | number }

/** The rest arguments of {@link text}: none for a text without placeholders, else its values. */
export type ParamsArg<K extends MessageKey> = [Placeholders<English[K]>] extends [never] ? [] : [params: MessageParams<K>]

/** Keys with plural forms: `"step.attemptsLeft"` for `"step.attemptsLeft.one"` and `"step.attemptsLeft.other"`. */
export type PluralKey = MessageKey extends infer K ? (K extends `${infer Base}.other` ? Base : never) : never

const PLACEHOLDER = /\{(\w+)\}/g

/** `template` with each `{name}` that `params` has replaced by its value; any other `{…}` is kept. */
export function fill(template: string, params: Readonly<Record<string, string | number>> | undefined): string {
  if (!params || !template.includes("{")) return template
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole))
}

/**
 * The text of `key` in `language`, its placeholders filled in. A catalogue that lacks the key (one
 * built without its type) gives the English text.
 *
 * @example text(language, "signin.submit", { provider: "GitHub" }) // "Sign in with GitHub", "Mit GitHub anmelden"
 */
export function text<K extends MessageKey>(language: Language, key: K, ...params: ParamsArg<K>): string {
  return fill(language.messages[key] ?? en[key], params[0])
}

const pluralRules = new Map<string, Intl.PluralRules>()

function pluralCategory(locale: string, count: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(locale)
  if (!rules) {
    try {
      rules = new Intl.PluralRules(locale)
    } catch {
      rules = new Intl.PluralRules("en")
    }
    // one entry per language the config names: bounded by the config
    pluralRules.set(locale, rules)
  }
  return rules.select(count)
}

/**
 * The form of `key` for `count` in `language` (`.one` when the language's plural rules say "one",
 * else `.other`), its placeholders filled in; `count` is also the `{count}` placeholder unless
 * `params` gives one.
 *
 * @example plural(language, "step.attemptsLeft", 1) // "1 attempt left."
 */
export function plural(language: Language, key: PluralKey, count: number, params?: Readonly<Record<string, string | number>>): string {
  const form: MessageKey = pluralCategory(language.locale, count) === "one" ? `${key}.one` : `${key}.other`
  return fill(language.messages[form] ?? en[form], { count, ...params })
}
