/**
 * Sign in with a magic link sent through Postmark's API.
 *
 * @example
 * ```ts
 * import Postmark from "authchart/providers/postmark"
 * Postmark({ from: "Acme <no-reply@acme.example>" }) // reads AUTH_POSTMARK_KEY
 * ```
 * The server token is `apiKey` (or `AUTH_POSTMARK_KEY`); messages go to the `outbound` stream.
 * The message is authchart's default sign-in email (the same subject, text and look as Auth.js'); pass
 * `sendVerificationRequest` to send your own. Needs an adapter with the verification-token methods.
 * @see https://postmarkapp.com/developer/api/email-api
 */
import { EMAIL_MAX_AGE, postToEmailApi, signInMessage } from "./email-api.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

export default function Postmark(options: EmailUserConfig = {}): EmailConfig {
  const preset: EmailConfig = {
    id: "postmark",
    type: "email",
    name: "Postmark",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      const { identifier: to, provider } = params
      if (!provider.apiKey) throw new TypeError("Missing Postmark API Key")
      const { subject, text, html } = signInMessage(params)
      await postToEmailApi("Postmark", "https://api.postmarkapp.com/email", {
        headers: { Accept: "application/json", "Content-Type": "application/json", "X-Postmark-Server-Token": provider.apiKey },
        body: JSON.stringify({ From: provider.from, To: to, Subject: subject, TextBody: text, HtmlBody: html, MessageStream: "outbound" }),
      })
    },
  }
  return { ...mergeOptions(preset, options), options }
}
