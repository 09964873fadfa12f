/**
 * Sign in with a magic link sent through Resend's API.
 *
 * @example
 * ```ts
 * import Resend from "authchart/providers/resend"
 * Resend({ from: "Acme <no-reply@acme.example>" }) // reads AUTH_RESEND_KEY
 * ```
 * The API key is `apiKey` (or `AUTH_RESEND_KEY`); `from` must be an address of a domain verified
 * with Resend.
 * The message is authchart's default sign-in email (the same subject, text and look as Auth.js'); pass
 * `sendVerificationRequest` to send your own. Needs an adapter with the verification-token methods.
 * @see https://resend.com/docs/api-reference/emails/send-email
 */
import { EMAIL_MAX_AGE, postToEmailApi, signInMessage } from "./email-api.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

export default function Resend(options: EmailUserConfig = {}): EmailConfig {
  const preset: EmailConfig = {
    id: "resend",
    type: "email",
    name: "Resend",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      const { identifier: to, provider } = params
      const { subject, text, html } = signInMessage(params)
      await postToEmailApi("Resend", "https://api.resend.com/emails", {
        headers: { Authorization: `Bearer ${provider.apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ from: provider.from, to, subject, html, text }),
      })
    },
  }
  return { ...mergeOptions(preset, options), options }
}
