/**
 * The shape of an email (magic link) provider: Auth.js' `EmailConfig`.
 */
import type { Awaitable, CommonProviderOptions, Theme } from "../types.js"
import type { Language } from "../messages/text.js"

/** What an email provider's `sendVerificationRequest` is given to mail a sign-in link. */
export interface SendVerificationRequestParams {
  /** The validated, normalised address: the only one the message may go to. */
  identifier: string
  /** The link that signs the user in: `<origin><basePath>/callback/<id>?callbackUrl=…&token=…&email=…`. */
  url: string
  expires: Date
  /**
   * The provider. At a sign-in it also carries its endpoints, `signinUrl` (`<origin><basePath>/signin/<id>`)
   * and `callbackUrl` (`…/callback/<id>`), as in Auth.js; optional, so a caller may pass the bare config.
   */
  provider: EmailConfig & { signinUrl?: string; callbackUrl?: string }
  /** The raw token (the adapter stores only its hash). */
  token: string
  theme: Theme
  request: Request
  /**
   * The language of the request that asked for the link (`pages.locale` or `Accept-Language`; an
   * authchart addition): the built-in message is written in it. Absent means English.
   */
  language?: Language
}

/** The options of an email (magic link) provider. */
export interface EmailUserConfig {
  id?: string
  name?: string
  /** SMTP: a connection URL or nodemailer transport options. */
  server?: string | Record<string, unknown>
  from?: string
  /** Seconds a link stays valid. Default 86 400 (24 h). */
  maxAge?: number
  sendVerificationRequest?: (params: SendVerificationRequestParams) => Awaitable<void>
  generateVerificationToken?: () => Awaitable<string>
  /** Turns what the user typed into the address to use; throw to refuse it. */
  normalizeIdentifier?: (identifier: string) => string
  /** A secret for hashing tokens instead of the config's. */
  secret?: string
  apiKey?: string
}

/** An email provider as the config holds it: its options with `id`, `name` and `type: "email"`. */
export interface EmailConfig extends EmailUserConfig {
  id: string
  name: string
  type: "email"
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>
  options?: EmailUserConfig
  /** The flow that signs in with this provider (default: the email link flow). */
  flow?: CommonProviderOptions["flow"]
}
