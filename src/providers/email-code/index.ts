/**
 * Sign in with a one-time code sent by email: the user enters an address, receives a 6-digit code,
 * types it on the next page, and is signed in. Works where magic links break (in-app browsers, a
 * phone reading the mail while the laptop signs in).
 *
 * @example
 * ```ts
 * import EmailCode from "authchart/providers/email-code"
 * EmailCode({ server: process.env.EMAIL_SERVER, from: "Acme <no-reply@acme.example>" })
 * ```
 * The code is single use, valid `maxAge` seconds (default 600, at most 900), and checked in constant
 * time; wrong codes are counted per code on the server (`serverState`), and the attempt after
 * `maxAttempts` (default 5) at that code is refused even when right (a new code, in its own flow, is
 * not). The flow keeps only an HMAC of the code, in its own sealed state (cookie or Redis flow store):
 * no adapter is needed, and with one the address is linked to its user as for magic links. `nodemailer` sends it unless you give `sendCode`.
 */
import type { Awaitable } from "../../index.js"
import { defineFlow, emailAccount, type FlowDefinition, type Language } from "../../flow/index.js"
import { DEFAULT_FROM, smtpSender } from "../nodemailer.js"
import { checkCode, sendCode } from "./effects.js"
import { emailCodeMachine } from "./machine.js"
import { renderCodeEmail } from "./message.js"
import { codePage, codeSignInBlock } from "./page.js"

/** What `sendCode` is given: the one address to write to, the code, and when it expires. */
export interface SendCodeParams {
  identifier: string
  code: string
  expires: Date
  /** The host the code signs into. */
  host: string
  request: Request
  /** The language of the request that asked for the code (`pages.locale` or `Accept-Language`): the built-in message is written in it. */
  language: Language
}

/** Options of {@link EmailCode}: where the mail goes out, and the code's lifetime and attempt cap. */
export interface EmailCodeUserConfig {
  /** Default `email-code`. */
  id?: string
  name?: string
  /** SMTP: a connection URL or nodemailer transport options (as for the magic-link provider). */
  server?: string | Record<string, unknown>
  from?: string
  /** Seconds a code is valid. Default 600; at most 900 (the flow's lifetime). */
  maxAge?: number
  /** Codes tried at one code sent before every further try at it is refused. Default 5. */
  maxAttempts?: number
  /** Sends the code your own way instead of through nodemailer. */
  sendCode?: (params: SendCodeParams) => Awaitable<void>
  /** Turns what the user typed into the address to use; throw to refuse it. */
  normalizeIdentifier?: (identifier: string) => string
}

/** The provider object {@link EmailCode} returns: options resolved, bound to {@link emailCodeFlow}. */
export interface EmailCodeConfig extends EmailCodeUserConfig {
  id: string
  name: string
  /** Its own kind: not a magic link (`"email"`), whose sign-in form, limits and requirements differ. */
  type: "email-code"
  /** The flow it signs in with: {@link emailCodeFlow}. */
  flow: FlowDefinition
  maxAge: number
  maxAttempts: number
  sendCode: (params: SendCodeParams) => Awaitable<void>
}

/** An email code provider with its own address normaliser (`normalizeIdentifier`), which the per-address limit applies too. */
const normalizes = (config: unknown): config is { normalizeIdentifier: (identifier: string) => string } =>
  typeof config === "object" && config !== null && "normalizeIdentifier" in config && typeof config.normalizeIdentifier === "function"

/**
 * The flow: the request, then the code. Every `EmailCode()` provider carries it (`flow`); nothing to
 * register. It declares its sign-in form, its limits (codes mailed per client and per address, as for
 * magic links), linking by address (as magic links link) and nodemailer when it sends over SMTP.
 */
export const emailCodeFlow = defineFlow({
  id: "email-code",
  machine: emailCodeMachine,
  routes: [
    // the address from the body only: an `email` in the query string is not read (as in Auth.js)
    {
      method: "POST",
      action: "signin",
      event: "SUBMIT",
      start: true,
      csrf: true,
      params: "body",
      limit: {
        rules: ["emailClient", "emailAddress"],
        account: (provider, body) => emailAccount(normalizes(provider.config) ? provider.config : {}, body),
      },
    },
    { method: "POST", action: "callback", step: "code", event: "CODE", csrf: true, params: ["code"] },
    { method: "GET", action: "callback", event: "SHOW", params: [] },
  ],
  actors: { sendCode, checkCode },
  pages: { code: codePage },
  signInBlock: codeSignInBlock,
  // with an adapter, the address is linked to its user (or one is created), as for magic links
  link: "email",
  requires: {
    adapterMethods: ["getUserByEmail", "createUser", "updateUser"],
    // nodemailer sends when the provider has SMTP `server` settings
    packages: ({ config }) => ("server" in config && config.server !== undefined ? ["nodemailer"] : []),
  },
})

/**
 * The email one-time code provider (id `email-code` unless you give one).
 *
 * @example
 * ```ts
 * const config = { providers: [EmailCode({ sendCode: ({ identifier, code }) => myMailer.send(identifier, `Your code: ${code}`) })] }
 * ```
 */
export default function EmailCode(options: EmailCodeUserConfig): EmailCodeConfig {
  const id = options.id ?? "email-code"
  const from = options.from ?? DEFAULT_FROM
  const maxAge = Math.min(options.maxAge ?? 600, 900)
  let send = options.sendCode
  if (!send) {
    if (!options.server) throw new TypeError(`The email code provider ("${id}") needs \`server\` (SMTP) or \`sendCode\`.`)
    const smtp = smtpSender(options.server)
    send = ({ identifier, code, host, language }) =>
      smtp({ to: identifier, from, ...renderCodeEmail({ code, host, minutes: Math.round(maxAge / 60), language }) })
  }
  return {
    ...options,
    id,
    name: options.name ?? "Email code",
    type: "email-code",
    flow: emailCodeFlow,
    from,
    maxAge,
    maxAttempts: options.maxAttempts ?? 5,
    sendCode: send,
  }
}
