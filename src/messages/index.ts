/**
 * The strings of the built-in pages and emails, one catalogue per language: `en` (the source of every
 * key) and `de` ship; the config's `pages.messages` adds languages or replaces these, `pages.locale`
 * or the request's `Accept-Language` picks one.
 *
 * @example
 * ```ts
 * import { de, en, type Messages } from "authchart/messages"
 *
 * // a whole language: every key (a missing one is a type error)
 * const fr: Messages = { ...en, "signin.title": "Connexion", "signin.submit": "Se connecter avec {provider}" }
 * const pages = { messages: { fr, de: { ...de, "signin.title": "Willkommen zurück" } } }
 * ```
 * @module
 */
export { en, type MessageKey, type Messages } from "./en.js"
export { de } from "./de.js"
export {
  english,
  fill,
  plural,
  text,
  type Language,
  type MessageParams,
  type ParamsArg,
  type Placeholders,
  type PluralKey,
} from "./text.js"
