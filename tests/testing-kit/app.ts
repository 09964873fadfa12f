// A small app as a user writes it: Express 5, credentials, email links and an OpenID provider, a
// protected route. Its tests (the other files here) use authchart/testing exactly as an app would.
import express from "express"
import type { AuthConfig } from "authchart"
import { MemoryAdapter } from "authchart/adapters/memory"
import { ExpressAuth, getSession } from "authchart/express"
import Credentials from "authchart/providers/credentials"
import Nodemailer from "authchart/providers/nodemailer"
import type { TestIdP, TestMailbox } from "authchart/testing"

const passwords = new Map([["ada@example.test", "correct horse"]])

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
          return (await adapter.getUserByEmail(email)) ?? (await adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: null, name: "Ada" }))
        },
      }),
      Nodemailer({ server: options.mailbox.url, from: "Example <app@example.test>" }),
      options.idp.provider(),
    ],
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
