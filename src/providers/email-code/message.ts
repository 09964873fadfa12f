/**
 * The default one-time code message: subject, text and a plain HTML part naming the host and the
 * minutes left. Every value in the HTML is escaped.
 */
import { escapeHtml } from "../../flow/index.js"

/** What the code message says. */
export interface CodeEmailParams {
  code: string
  /** The host the code signs into, e.g. `app.example`. */
  host: string
  /** Minutes the code stays valid. */
  minutes: number
}

/** Renders the one-time code email. */
export function renderCodeEmail({ code, host, minutes }: CodeEmailParams): { subject: string; text: string; html: string } {
  const expiry = `It expires in ${minutes} minutes.`
  const ignore = "If you did not ask for it, ignore this email."
  const lines = [`Your sign-in code for ${host} is ${code}.`, expiry, ignore]
  const font = "font-family: Helvetica, Arial, sans-serif; color: #444;"
  const html = `<body style="background: #f9f9f9;"><div style="background: #fff; max-width: 600px; margin: auto; padding: 20px; border-radius: 10px; ${font}">
<p>Your sign-in code for <strong>${escapeHtml(host)}</strong> is</p>
<p style="font-size: 32px; letter-spacing: 6px; font-weight: bold;">${escapeHtml(code)}</p>
<p>${escapeHtml(expiry)} ${escapeHtml(ignore)}</p></div></body>
`
  return { subject: `Your sign-in code for ${host}`, text: `${lines.join("\n")}\n`, html }
}
