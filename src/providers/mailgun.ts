/**
 * Sign in with a magic link sent through Mailgun's API.
 *
 * @example
 * ```ts
 * import MailGun from "authchart/providers/mailgun"
 * MailGun({ from: "no-reply@mg.acme.example", region: "EU" }) // reads AUTH_MAILGUN_KEY
 * ```
 * The API key is `apiKey` (or `AUTH_MAILGUN_KEY`). `from` is a bare address of your Mailgun sending
 * domain (the domain is read from it); `region: "EU"` uses Mailgun's EU API.
 * The message is authchart's default sign-in email (the same subject, text and look as Auth.js'); pass
 * `sendVerificationRequest` to send your own. Needs an adapter with the verification-token methods.
 * @see https://documentation.mailgun.com/docs/mailgun/api-reference/openapi-final/tag/Messages/
 */
import { EMAIL_MAX_AGE, postToEmailApi, signInMessage } from "./email-api.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

/** Mailgun's API host per region. */
const API_SERVERS = { US: "api.mailgun.net", EU: "api.eu.mailgun.net" } as const

export default function MailGun(options: EmailUserConfig & { region?: "US" | "EU" } = {}): EmailConfig {
  const { region = "US", ...rest } = options
  const apiServer = API_SERVERS[region]
  const preset: EmailConfig = {
    id: "mailgun",
    type: "email",
    name: "Mailgun",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      const { identifier: to, provider } = params
      const domain = provider.from?.split("@").at(1)
      if (!domain) throw new Error("malformed Mailgun domain")
      const { subject, text, html } = signInMessage(params)
      const form = new FormData()
      form.append("from", `${provider.name} <${provider.from}>`)
      form.append("to", to)
      form.append("subject", subject)
      form.append("html", html)
      form.append("text", text)
      await postToEmailApi("Mailgun", `https://${apiServer}/v3/${domain}/messages`, {
        headers: { Authorization: `Basic ${btoa(`api:${provider.apiKey}`)}` },
        body: form,
      })
    },
  }
  return { ...mergeOptions(preset, rest), options }
}
