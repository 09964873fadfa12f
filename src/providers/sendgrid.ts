/**
 * Sign in with a magic link sent through SendGrid's API.
 *
 * @example
 * ```ts
 * import SendGrid from "authchart/providers/sendgrid"
 * SendGrid({ from: "Acme <no-reply@acme.example>" }) // reads AUTH_SENDGRID_KEY
 * ```
 * The API key is `apiKey` (or `AUTH_SENDGRID_KEY`); `from` must be a verified sender.
 * The message is authchart's default sign-in email (the same subject, text and look as Auth.js'); pass
 * `sendVerificationRequest` to send your own. Needs an adapter with the verification-token methods.
 * @see https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send
 */
import { EMAIL_MAX_AGE, postToEmailApi, signInMessage } from "./email-api.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

export default function SendGrid(options: EmailUserConfig = {}): EmailConfig {
  const preset: EmailConfig = {
    id: "sendgrid",
    type: "email",
    name: "SendGrid",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      const { identifier: to, provider } = params
      const { subject, text, html } = signInMessage(params)
      await postToEmailApi("Sendgrid", "https://api.sendgrid.com/v3/mail/send", {
        headers: { Authorization: `Bearer ${provider.apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          personalizations: [{ to: [{ email: to }] }],
          from: { email: provider.from },
          subject,
          content: [
            { type: "text/plain", value: text },
            { type: "text/html", value: html },
          ],
        }),
      })
    },
  }
  return { ...mergeOptions(preset, options), options }
}
