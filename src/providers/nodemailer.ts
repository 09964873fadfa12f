/**
 * Sign in with a magic link sent by email over SMTP, through nodemailer.
 *
 * @example
 * ```ts
 * import Nodemailer from "authchart/providers/nodemailer"
 * Nodemailer({
 *   server: process.env.EMAIL_SERVER, // smtp://user:pass@smtp.example.com:587
 *   from: "Acme <no-reply@acme.example>",
 * })
 * ```
 * `nodemailer` is an optional peer dependency: `npm install nodemailer`. It is loaded on the first
 * message, and one transport is built per provider, from `server` (an SMTP URL or nodemailer transport
 * options). Unless you set them, the SMTP connection, greeting and socket timeouts are 10 s, so a dead
 * mail server fails the sign-in instead of hanging it.
 *
 * The message is {@link renderVerificationEmail}'s (Auth.js' subject, text and look). A recipient the
 * server rejects, or leaves pending, makes the send throw (`Email(s) (<addresses>) could not be sent`).
 * Give `sendVerificationRequest` to send it your own way, `generateVerificationToken` for your own
 * tokens, `normalizeIdentifier` to accept addresses your own way.
 *
 * Default `from` is `authchart <no-reply@authchart.invalid>`: a placeholder (Auth.js uses
 * `Auth.js <no-reply@authjs.dev>`); real mail servers want an address of your own domain.
 */
import type { SendMailOptions, SentMessageInfo, Transporter } from "nodemailer"
import { renderVerificationEmail } from "./email-message.js"
import { isPlainObject } from "../runtime/config/plain-object.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"

export type { EmailConfig, EmailUserConfig, SendVerificationRequestParams }

/** Sender used when the options have no `from`. */
export const DEFAULT_FROM = "authchart <no-reply@authchart.invalid>"

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000 } as const

export default function Nodemailer(options: EmailUserConfig): EmailConfig {
  const id = options.id ?? "nodemailer"
  const name = options.name ?? "Nodemailer"
  const server = options.server
  if (!server) {
    throw new TypeError(
      `The ${name} provider ("${id}") needs \`server\`: an SMTP URL such as ` +
        "smtp://user:pass@smtp.example.com:587, or nodemailer transport options.",
    )
  }

  const send = smtpSender(server)
  async function sendVerificationRequest(params: SendVerificationRequestParams): Promise<void> {
    const { identifier, url, theme, language } = params
    const message = renderVerificationEmail({ url, host: new URL(url).host, theme, ...(language ? { language } : {}) })
    await send({ to: identifier, from: params.provider.from ?? options.from ?? DEFAULT_FROM, ...message })
  }

  return {
    ...definedOnly(options),
    id,
    name,
    type: "email",
    server,
    from: options.from ?? DEFAULT_FROM,
    maxAge: options.maxAge ?? 24 * 60 * 60,
    sendVerificationRequest: options.sendVerificationRequest ?? sendVerificationRequest,
    options,
  }
}

/** One message for {@link smtpSender}: a single recipient address, the sender, and the content. */
export interface SmtpMessage {
  to: string
  from: string
  subject: string
  text: string
  html: string
}

/**
 * Sends messages through nodemailer as the {@link Nodemailer} provider does: one transport built on the
 * first message from `server` (an SMTP URL or transport options, with the bounded timeouts added), the
 * recipient as an address object (never split into several), and a throw when the server rejects the
 * recipient or leaves it pending. For providers that mail something else than a link (a one-time code).
 *
 * @example
 * ```ts
 * const send = smtpSender("smtp://user:pass@smtp.example.com:587")
 * await send({ to: "ada@example.com", from: "Acme <no-reply@acme.example>", subject, text, html })
 * ```
 */
export function smtpSender(server: string | Record<string, unknown>): (message: SmtpMessage) => Promise<void> {
  const transportOptions = withTimeouts(server)
  let transport: Promise<Transporter> | undefined
  function transporter(): Promise<Transporter> {
    transport ??= createTransporter(transportOptions).catch((error: unknown) => {
      transport = undefined
      throw error
    })
    return transport
  }
  return async (message) => {
    const mail: SendMailOptions = { ...message, to: { name: "", address: message.to } }
    const mailer = await transporter()
    let info: SentMessageInfo
    try {
      info = await mailer.sendMail(mail)
    } catch (error) {
      const rejected = addresses((error as { rejected?: unknown } | null)?.rejected)
      throw new Error(couldNotSend(rejected.length > 0 ? rejected : [message.to]), { cause: error })
    }
    const rejected = addresses((info as { rejected?: unknown }).rejected)
    const pending = addresses((info as { pending?: unknown }).pending)
    if (rejected.length + pending.length > 0) {
      throw new Error(couldNotSend([...rejected, ...pending]), {
        cause: { rejected, pending, response: (info as { response?: unknown }).response },
      })
    }
  }
}

async function createTransporter(server: string | Record<string, unknown>): Promise<Transporter> {
  let nodemailer: typeof import("nodemailer")
  try {
    nodemailer = await import("nodemailer")
  } catch (error) {
    throw new Error('Email sign-in sends mail with the "nodemailer" package, which could not be loaded: npm install nodemailer', {
      cause: error,
    })
  }
  return nodemailer.createTransport(server as Parameters<typeof nodemailer.createTransport>[0])
}

/** Adds the bounded SMTP timeouts the user did not set, to a URL (as query options) or to options. */
function withTimeouts(server: string | Record<string, unknown>): string | Record<string, unknown> {
  if (typeof server === "string") return urlWithTimeouts(server)
  if (typeof server.send === "function" || !isPlainObject(server)) return server // a transport instance
  // nodemailer reads only the URL when `url` is given, so the timeouts go there.
  if (typeof server.url === "string") return { ...server, url: urlWithTimeouts(server.url) }
  return { ...SMTP_TIMEOUTS, ...server }
}

function urlWithTimeouts(url: string): string {
  if (!/^(?:smtps?|direct):/i.test(url)) return url
  let query: URLSearchParams
  try {
    query = new URL(url).searchParams
  } catch {
    return url
  }
  const missing = Object.entries(SMTP_TIMEOUTS).filter(([key]) => !query.has(key))
  if (missing.length === 0) return url
  const hash = url.indexOf("#")
  const [base, fragment] = hash === -1 ? [url, ""] : [url.slice(0, hash), url.slice(hash)]
  const separator = base.includes("?") ? "&" : "?"
  return `${base}${separator}${missing.map(([key, value]) => `${key}=${value}`).join("&")}${fragment}`
}

function addresses(list: unknown): string[] {
  if (!Array.isArray(list)) return []
  return list
    .map((entry: unknown) => (typeof entry === "string" ? entry : String((entry as { address?: unknown } | null)?.address ?? "")))
    .filter(Boolean)
}

function couldNotSend(list: string[]): string {
  return `Email(s) (${list.join(", ")}) could not be sent`
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
