/**
 * Sign in with a magic link sent as a Loops transactional email.
 *
 * @example
 * ```ts
 * import Loops from "authchart/providers/loops"
 * Loops({ transactionalId: "clx…" }) // reads AUTH_LOOPS_KEY
 * ```
 * The message is your Loops template `transactionalId`, given the sign-in link as its `url` data
 * variable; the API key is `apiKey` (or `AUTH_LOOPS_KEY`). Needs an adapter with the
 * verification-token methods.
 * @see https://loops.so/docs/transactional
 */
import { EMAIL_MAX_AGE, postToEmailApi } from "./email-api.js"
import type { EmailConfig, SendVerificationRequestParams } from "./email-types.js"
import { DEFAULT_FROM } from "./nodemailer.js"
import { mergeOptions } from "./oauth.js"

/** The Loops provider: an email provider with the API key and the transactional email's id. */
export interface LoopsConfig extends Omit<EmailConfig, "sendVerificationRequest" | "options"> {
  id: string
  apiKey: string
  transactionalId: string
  sendVerificationRequest: (params: SendVerificationRequestParams & { provider: LoopsConfig }) => Promise<void>
  options: LoopsUserConfig
}

/** Options of {@link Loops}. */
export type LoopsUserConfig = Omit<Partial<LoopsConfig>, "options" | "type">

export default function Loops(options: LoopsUserConfig = {}): LoopsConfig {
  const preset: LoopsConfig = {
    id: "loops",
    apiKey: "",
    type: "email",
    name: "Loops",
    from: DEFAULT_FROM,
    maxAge: EMAIL_MAX_AGE,
    transactionalId: options.transactionalId || "",
    async sendVerificationRequest({ identifier: email, provider, url }) {
      if (!provider.apiKey || !provider.transactionalId) throw new TypeError("Missing Loops API Key or TransactionalId")
      await postToEmailApi("Loops Send", "https://app.loops.so/api/v1/transactional", {
        headers: { Authorization: `Bearer ${provider.apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ transactionalId: provider.transactionalId, email, dataVariables: { url } }),
      })
    },
    options,
  }
  return { ...mergeOptions(preset, options), options }
}
