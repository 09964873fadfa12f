/** Cookie, theme and page options. Part of the public types, re-exported by `authchart`. */
import type { Messages } from "../messages/en.js"

/** Options of one cookie, in the `cookie` package's vocabulary. */
export interface CookieOption {
  name: string
  options: {
    httpOnly?: boolean
    sameSite?: "lax" | "strict" | "none" | boolean
    path?: string
    secure?: boolean
    domain?: string
    maxAge?: number
    expires?: Date
    partitioned?: boolean
    priority?: "low" | "medium" | "high"
  }
}

/** The cookies authchart sets, by their key in `config.cookies`. */
export type CookieKey = "sessionToken" | "callbackUrl" | "csrfToken" | "pkceCodeVerifier" | "state" | "nonce" | "webauthnChallenge" | "flow"

/** Name and options of every cookie, as Auth.js' `cookies` option. */
export type CookiesOptions = Record<CookieKey, CookieOption>

/** Look of the built-in pages. */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light"
  logo?: string
  brandColor?: string
  buttonText?: string
}

/**
 * Paths of the application's own pages (each replaces a built-in page by a redirect), and the language
 * of the built-in pages and emails (docs/languages.md).
 */
export interface PagesOptions {
  signIn?: string
  signOut?: string
  error?: string
  verifyRequest?: string
  newUser?: string
  /**
   * The language of every built-in page and email, e.g. `"de"` (a region falls back to its language:
   * `"de-AT"` → `"de"`). Default: each request's `Accept-Language`, else English.
   */
  locale?: string
  /**
   * Languages by BCP 47 tag: new ones, or replacements of the built-in `en` and `de`. Each is a whole
   * catalogue (`Messages`), so a missing key is a type error; to change a few strings, spread the
   * built-in one: `{ de: { ...de, "signin.title": "Willkommen" } }` (`import { de } from "authchart/messages"`).
   */
  messages?: Readonly<Record<string, Messages>>
}

/** A cookie a response wants set (or cleared, with `maxAge: 0`). Plain data, serialised once. */
export interface OutCookie {
  readonly name: string
  readonly value: string
  readonly options: CookieOption["options"]
}

/** Request cookies by name. The first occurrence of a name wins (RFC 6265 §5.4 order). */
export type CookieJar = Readonly<Record<string, string | undefined>>
