/**
 * Sign in with a magic link sent through Forward Email's API.
 *
 * @example
 * ```ts
 * import ForwardEmail from "authchart/providers/forwardemail"
 * ForwardEmail({ from: "Acme <no-reply@acme.example>" }) // reads AUTH_FORWARDEMAIL_KEY
 * ```
 * The API token is `apiKey` (or `AUTH_FORWARDEMAIL_KEY`), sent as HTTP Basic user name.
 * The message is authchart's default sign-in email (the same subject, text and look as Auth.js'); pass
 * `sendVerificationRequest` to send your own. Needs an adapter with the verification-token methods.
 * @see https://forwardemail.net/en/email-api
 */
import { EMAIL_MAX_AGE, postToEmailApi, signInMessage } from "./email-api.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

export default function ForwardEmail(options: EmailUserConfig = {}): EmailConfig {
  const preset: EmailConfig = {
    id: "forwardemail",
    type: "email",
    name: "Forward Email",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      const { identifier: to, provider } = params
      const { subject, text, html } = signInMessage(params)
      await postToEmailApi("Forward Email", "https://api.forwardemail.net/v1/emails", {
        headers: { Authorization: `Basic ${btoa(`${provider.apiKey}:`)}`, "Content-Type": "application/json" },
        body: JSON.stringify({ from: provider.from, to, subject, html, text }),
      })
    },
  }
  return { ...mergeOptions(preset, options), options }
}
