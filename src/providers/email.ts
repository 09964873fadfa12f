/**
 * Sign in with a magic link sent by email: the {@link Nodemailer} provider under the id `email`.
 *
 * @example
 * ```ts
 * import Email from "authchart/providers/email"
 * Email({ server: process.env.EMAIL_SERVER, from: "Acme <no-reply@acme.example>" })
 * ```
 * Kept for Auth.js compatibility (`/auth/signin/email`, `/auth/callback/email`); new apps can use
 * `authchart/providers/nodemailer` directly. Needs the optional peer `nodemailer`.
 */
import Nodemailer from "./nodemailer.js"
import type { EmailConfig, EmailUserConfig } from "./email-types.js"

export type { EmailConfig, EmailUserConfig }

export default function Email(options: EmailUserConfig): EmailConfig {
  const provider = Nodemailer({ ...options, id: options.id ?? "email", name: options.name ?? "Email" })
  return { ...provider, options }
}
