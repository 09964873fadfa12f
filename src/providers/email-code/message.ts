/**
 * The default one-time code message: subject, text and a plain HTML part naming the host and the
 * minutes left. Every value in the HTML is escaped.
 */
import { english, escapeHtml, type Language, text } from "../../flow/index.js"

/** What the code message says. */
export interface CodeEmailParams {
  code: string
  /** The host the code signs into, e.g. `app.example`. */
  host: string
  /** Minutes the code stays valid. */
  minutes: number
  /** The language it is written in. Default English. */
  language?: Language
}

/** Renders the one-time code email. */
export function renderCodeEmail({ code, host, minutes, language = english }: CodeEmailParams): {
  subject: string
  text: string
  html: string
} {
  const expiry = text(language, "emailCode.email.expires", { minutes })
  const ignore = text(language, "emailCode.email.ignore")
  const lines = [text(language, "emailCode.email.line", { host, code }), expiry, ignore]
  // the host in <strong> inside the escaped intro: split the text at its placeholder
  const [before = "", after = ""] = (language.messages["emailCode.email.intro"] ?? "Your sign-in code for {host} is").split("{host}")
  const font = "font-family: Helvetica, Arial, sans-serif; color: #444;"
  const html = `<body style="background: #f9f9f9;"><div style="background: #fff; max-width: 600px; margin: auto; padding: 20px; border-radius: 10px; ${font}">
<p>${escapeHtml(before)}<strong>${escapeHtml(host)}</strong>${escapeHtml(after)}</p>
<p style="font-size: 32px; letter-spacing: 6px; font-weight: bold;">${escapeHtml(code)}</p>
<p>${escapeHtml(expiry)} ${escapeHtml(ignore)}</p></div></body>
`
  return { subject: text(language, "emailCode.email.subject", { host }), text: `${lines.join("\n")}\n`, html }
}
