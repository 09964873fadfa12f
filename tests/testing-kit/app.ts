// A small app as a user writes it: Express 5, credentials, email links and an OpenID provider, a
// protected route. Its tests (the other files here) use authchart/testing exactly as an app would.
import express from "express"
import { type AuthConfig, credentialsFlow, extendFlow } from "authchart"
import { MemoryAdapter } from "authchart/adapters/memory"
import { ExpressAuth, getSession } from "authchart/express"
import Credentials from "authchart/providers/credentials"
import Nodemailer from "authchart/providers/nodemailer"
import { totpStep } from "authchart/steps/totp"
import type { TestIdP, TestMailbox } from "authchart/testing"

const passwords = new Map([
  ["ada@example.test", "correct horse"],
  ["kay@example.test", "battery staple"],
])
/** Kay signs in with a second factor: a TOTP code from this secret. */
export const KAY_TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

export function createApp(options: { mailbox: TestMailbox; idp: TestIdP; strategy: "jwt" | "database" }) {
  const adapter = MemoryAdapter()
  const authConfig: AuthConfig = {
    secret: "the-example-app-secret-0123456789abcdef",
    trustHost: true,
    adapter,
    session: { strategy: options.strategy },
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
        authorize: async ({ email, password }) => {
          if (typeof email !== "string" || passwords.get(email) !== password) return null
          return (
            (await adapter.getUserByEmail(email)) ??
            (await adapter.createUser({
              id: crypto.randomUUID(),
              email,
              emailVerified: null,
              name: email.startsWith("ada") ? "Ada" : "Kay",
            }))
          )
        },
      }),
      Nodemailer({ server: options.mailbox.url, from: "Example <app@example.test>" }),
      options.idp.provider(),
    ],
    flows: [extendFlow(credentialsFlow, [totpStep({ secretFor: (user) => (user.email === "kay@example.test" ? KAY_TOTP_SECRET : null) })])],
  }
  const app = express()
  app.use("/auth", ExpressAuth(authConfig))
  app.get("/me", async (req, res) => {
    const session = await getSession(req, authConfig)
    if (!session?.user) {
      res.status(401).json({ error: "sign in first" })
      return
    }
    res.json({ email: session.user.email, name: session.user.name })
  })
  return { app, authConfig, adapter }
}
