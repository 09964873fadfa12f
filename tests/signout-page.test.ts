/**
 * The built-in sign-out page with database sessions and many OpenID providers that support logout: it is
 * Auth.js' page (one "Sign out" button) and reads no session, so an app that reads the session in its own
 * middleware makes one `getSessionAndUser` call per request, as under `@auth/express`. With
 * `logout.offerOnSignOutPage` the page offers logout at the providers and reads the session once,
 * whatever the number of providers.
 */
import { ExpressAuth as AuthJsExpressAuth, getSession as authJsGetSession } from "@auth/express"
import express from "express"
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { AuthConfig } from "../src/index.js"
import { ExpressAuth, getSession } from "../src/integration/express.js"
import { SECRET } from "./helpers.js"
import { servesApps } from "./support/express-apps.js"

const serve = servesApps()

/** Eleven OpenID providers, each with an issuer whose discovery would offer an end-session endpoint. */
const providers = Array.from({ length: 11 }, (_, i) => ({
  id: `idp${i}`,
  name: `IdP ${i}`,
  type: "oidc" as const,
  issuer: `https://idp${i}.example`,
  clientId: "app",
  clientSecret: "app-secret",
}))

/** A memory adapter counting its `getSessionAndUser` calls, with one signed-in person. */
async function countingAdapter() {
  const adapter = MemoryAdapter()
  const user = await adapter.createUser({ id: "u-1", email: "ada@example.com", emailVerified: null })
  const sessionToken = "session-token-of-ada"
  await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + 86_400_000) })
  const calls = { getSessionAndUser: 0 }
  const getSessionAndUser = adapter.getSessionAndUser.bind(adapter)
  const counted = {
    ...adapter,
    getSessionAndUser: (token: string) => {
      calls.getSessionAndUser++
      return getSessionAndUser(token)
    },
  }
  return { adapter: counted, calls, cookie: `authjs.session-token=${sessionToken}` }
}

const buttons = (html: string) => [...html.matchAll(/<button\b[^>]*>([^<]*)<\/button>/g)].map((m) => m[1])

type Side = "Auth.js" | "authchart"

/** The app of the issue: its own middleware reads the session for every page, then the auth routes. */
async function appWithSessionMiddleware(side: Side, logout?: AuthConfig["logout"]) {
  const { adapter, calls, cookie } = await countingAdapter()
  const config = {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "database" as const },
    adapter,
    providers,
    ...(logout ? { logout } : {}),
  }
  const app = express()
  app.use(async (req, res, next) => {
    try {
      res.locals.session = side === "Auth.js" ? await authJsGetSession(req, config as never) : await getSession(req, config)
      next()
    } catch (err) {
      next(err)
    }
  })
  app.use("/auth", side === "Auth.js" ? AuthJsExpressAuth(config as never) : ExpressAuth(config))
  const { base } = await serve(app)
  return { base, calls, cookie }
}

describe("the sign-out page, database sessions, 11 OpenID providers", () => {
  it.each<Side>(["Auth.js", "authchart"])("%s: one Sign out button, one session read for the whole request", async (side) => {
    const { base, calls, cookie } = await appWithSessionMiddleware(side)
    const page = await fetch(`${base}/auth/signout`, { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(buttons(await page.text())).toEqual(["Sign out"])
    expect(calls.getSessionAndUser).toBe(1)
  })

  it("authchart with logout.provider: still Auth.js' page and one read (the one button logs out at the provider)", async () => {
    const { base, calls, cookie } = await appWithSessionMiddleware("authchart", { provider: "idp3" })
    const page = await fetch(`${base}/auth/signout`, { headers: { cookie } })
    expect(buttons(await page.text())).toEqual(["Sign out"])
    expect(calls.getSessionAndUser).toBe(1)
  })

  it("with logout.offerOnSignOutPage, the page itself reads the session once, not once per provider", async () => {
    const { adapter, calls, cookie } = await countingAdapter()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      session: { strategy: "database" },
      adapter,
      providers,
      logout: { offerOnSignOutPage: true },
    }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    const { base } = await serve(app)
    const page = await fetch(`${base}/auth/signout`, { headers: { cookie } })
    expect(page.status).toBe(200)
    // this session holds no provider's ID token: nothing to offer
    expect(buttons(await page.text())).toEqual(["Sign out"])
    expect(calls.getSessionAndUser).toBe(1)
  })
})
