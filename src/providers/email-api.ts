/**
 * The shared part of the presets that send the magic link through an email API (Resend, Postmark,
 * SendGrid, Mailgun, Forward Email, Loops): the message they send, and one bounded POST to the API that
 * throws, naming the service, when it answers an error.
 */
import { renderVerificationEmail, type VerificationEmail } from "./email-message.js"
import type { SendVerificationRequestParams } from "./email-types.js"

/** How long an email API may take to answer, in milliseconds. */
export const EMAIL_API_TIMEOUT = 10_000

/** Link lifetime of the API presets, in seconds (24 hours, as Auth.js'). */
export const EMAIL_MAX_AGE = 24 * 60 * 60

/** The sign-in message for `params`: subject, text and HTML, for the host of its link. */
export function signInMessage({
  url,
  theme,
  language,
}: Pick<SendVerificationRequestParams, "url" | "theme" | "language">): VerificationEmail {
  return renderVerificationEmail({ url, host: new URL(url).host, theme, ...(language ? { language } : {}) })
}

/** POSTs to an email API; an error status throws `<service> error: <the API's answer>`. */
export async function postToEmailApi(
  service: string,
  url: string,
  init: { headers: Record<string, string>; body: string | FormData },
): Promise<void> {
  const response = await fetch(url, { method: "POST", ...init, signal: AbortSignal.timeout(EMAIL_API_TIMEOUT) })
  if (!response.ok) throw new Error(`${service} error: ${await response.text()}`)
}
