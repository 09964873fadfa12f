/**
 * Passkeys end to end: Debian's Chromium with a CDP virtual authenticator (ctap2, internal, resident key,
 * user verification; tests/support/browser.ts) on the built-in sign-in page of an Express 5 app served at
 * http://localhost:<port> (RP ID `localhost`), with every adapter backend in `backends.ts` that has the
 * WebAuthn methods (`getAccount` and the authenticator methods); the others show one skipped test that
 * names the reason. What the adapter stores and finds (users, accounts, authenticators, counters, the
 * unknown credential, nothing left behind by a refused sign-in) is checked on every backend; the checks of
 * the flow alone (challenge, options, callback input, conditional UI) on the first.
 *
 * Bad input is replayed over HTTP with real responses: the browser's form POST to the callback is
 * captured (and aborted), then sent, altered or resent with the cookies the browser held at that moment.
 */
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import type { CDPSession, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "../src/adapters/types.js"
import { Auth } from "../src/index.js"
import { ExpressAuth, type ExpressAuthConfig } from "../src/integration/express.js"
import Passkey from "../src/providers/passkey.js"
import type { WebAuthnUserConfig } from "../src/providers/webauthn-types.js"
import { SECRET, captureLogger } from "./helpers.js"
import { backends, noPasskeys } from "./support/backends.js"
import { type Browser, launchBrowser } from "./support/browser.js"

const CALLBACK = "**/auth/callback/passkey"
const EMAIL_FIELD = "#input-email-for-passkey-provider"

// One Chromium for every backend: each test opens its own tab with its own virtual authenticator, and
// a tab starts with the browser's cookies cleared.
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

describe.each(backends)("passkeys with the $name adapter", (backend) => {
  const gap = noPasskeys(backend)
  if (gap) {
    it.skip(`not run: ${gap}`, () => {})
    return
  }
  let adapter: Adapter
  let teardown: () => Promise<void>
  let server: Server
  let base: string
  const log = captureLogger()

  /** The app's config; `provider` options and `extra` make the variants of the in-process checks. */
  function authConfig(provider: WebAuthnUserConfig = {}, extra: Partial<ExpressAuthConfig> = {}): ExpressAuthConfig {
    return {
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: log.logger,
      experimental: { enableWebAuthn: true },
      providers: [Passkey(provider)],
      callbacks: { signIn: ({ user }) => (user.email === "later@example.test" ? "/not-yet" : true) },
      ...extra,
    }
  }

  beforeAll(async () => {
    ;({ adapter, teardown } = await backend.setup())
    const app = express()
    app.use("/auth", ExpressAuth(authConfig()))
    app.get("/", (_req, res) => void res.send("<p>home</p>"))
    app.get("/not-yet", (_req, res) => void res.send("<p>not yet</p>"))
    server = app.listen(0, "127.0.0.1")
    await once(server, "listening")
    base = `http://localhost:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server?.close()
    await teardown?.()
  })

  /** A tab with its own virtual authenticator; `autofill: false` is a browser without conditional UI. */
  async function tab({ autofill }: { autofill: boolean }): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    if (!autofill) {
      await page.addInitScript(() => {
        PublicKeyCredential.isConditionalMediationAvailable = async () => false
      })
    }
    const cdp = await browser.context.newCDPSession(page)
    await cdp.send("WebAuthn.enable", { enableUI: false })
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    })
    return { page, cdp, authenticatorId }
  }

  async function session(page: Page): Promise<{ user?: { email?: string } } | null> {
    return (await page.context().request.get(`${base}/auth/session`)).json()
  }

  async function sessionUserId(page: Page): Promise<string | undefined> {
    const cookie = (await page.context().cookies(base)).find((c) => c.name === "authjs.session-token")
    return cookie ? (await adapter.getSessionAndUser?.(cookie.value))?.user.id : undefined
  }

  async function register(page: Page, email: string): Promise<void> {
    await page.goto(`${base}/auth/signin`)
    await page.fill(EMAIL_FIELD, email)
    await page.click("text=Register with Passkey")
  }

  async function signOut(page: Page): Promise<void> {
    await page.goto(`${base}/auth/signout`)
    await page.click("button")
    await page.waitForURL(`${base}/`)
    expect(await session(page)).toBeNull()
  }

  /** Runs `act` until the browser posts to the callback; that POST is captured and aborted. */
  async function capture(page: Page, act: () => Promise<void>): Promise<{ fields: Record<string, string>; cookie: string }> {
    const posted = new Promise<string>((resolve) => {
      void page.route(CALLBACK, async (route) => {
        resolve(route.request().postData() ?? "")
        await route.abort()
      })
    })
    await act()
    const body = await posted
    await page.unroute(CALLBACK)
    const cookie = (await page.context().cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ")
    await page.context().clearCookies()
    return { fields: Object.fromEntries(new URLSearchParams(body)), cookie }
  }

  /**
   * A captured sign-in response for a fresh user's passkey (registered, then signed out). `asAuthJs`:
   * the options request carries no `callbackUrl`, as from Auth.js' `signIn("passkey")` client.
   */
  async function capturedSignIn(email: string, { asAuthJs = false } = {}) {
    const { page } = await tab({ autofill: false })
    await register(page, email)
    await page.waitForURL(`${base}/`)
    await signOut(page)
    if (asAuthJs) {
      await page.route("**/auth/webauthn-options/**", (route) => {
        const url = new URL(route.request().url())
        url.searchParams.delete("callbackUrl")
        return route.continue({ url: url.href })
      })
    }
    await page.goto(`${base}/auth/signin`)
    const captured = await capture(page, () => page.click("text=Sign in with Passkey"))
    await page.close()
    return captured
  }

  async function post(cookie: string, fields: Record<string, string>): Promise<Response> {
    return fetch(`${base}/auth/callback/passkey`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    })
  }

  /**
   * A check of the flow itself (its state, its challenge, the options and callback input), which reads
   * or writes nothing in the adapter beyond what the checks run on every backend already cover: run with
   * the first backend only.
   */
  const flowCheck = backend === backends.find((b) => !noPasskeys(b)) ? it : undefined

  const sessionCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))

  function expectRefused(res: Response, location: string): void {
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${base}${location}`)
    expect(sessionCookie(res)).toBeUndefined()
  }

  it("register from the sign-in page → signed in → sign out → sign in with the passkey → the same user", async () => {
    const { page, cdp, authenticatorId } = await tab({ autofill: false })
    await register(page, "ada@example.test")
    await page.waitForURL(`${base}/`)
    expect((await session(page))?.user?.email).toBe("ada@example.test")
    const user = await adapter.getUserByEmail?.("ada@example.test")
    expect(user).toBeTruthy()
    expect(await sessionUserId(page)).toBe(user?.id)
    const [stored] = (await adapter.listAuthenticatorsByUserId?.(user?.id as string)) ?? []
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
    expect(credentials).toHaveLength(1)
    expect(stored?.credentialID).toBe(credentials[0]?.credentialId)
    expect(stored?.transports).toBe("internal")
    expect(await adapter.getAccount?.(stored?.credentialID as string, "passkey")).toMatchObject({ userId: user?.id, type: "webauthn" })

    await signOut(page)
    await page.goto(`${base}/auth/signin`)
    await page.click("text=Sign in with Passkey")
    await page.waitForURL(`${base}/`)
    expect((await session(page))?.user?.email).toBe("ada@example.test")
    expect(await sessionUserId(page)).toBe(user?.id)
    expect((await adapter.getAuthenticator?.(stored?.credentialID as string))?.counter).toBeGreaterThan(stored?.counter ?? 0)
    await page.close()
  }, 60_000)

  flowCheck?.(
    "conditional UI: the passkey offered in the email field's autofill signs in on page load",
    async () => {
      const { page } = await tab({ autofill: true })
      await register(page, "grace@example.test")
      await page.waitForURL(`${base}/`)
      const id = await sessionUserId(page)
      await signOut(page)
      await page.goto(`${base}/auth/signin?callbackUrl=${encodeURIComponent(`${base}/?via=autofill`)}`)
      await page.waitForURL(`${base}/?via=autofill`)
      expect((await session(page))?.user?.email).toBe("grace@example.test")
      expect(await sessionUserId(page)).toBe(id)
      await page.close()
    },
    60_000,
  )

  it("a signed-in user adds a second passkey (another authenticator) to the same account", async () => {
    const { page, cdp, authenticatorId } = await tab({ autofill: false })
    await register(page, "linus@example.test")
    await page.waitForURL(`${base}/`)
    const id = await sessionUserId(page)
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId })
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "usb",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    })
    await register(page, "linus@example.test")
    await page.waitForURL(`${base}/`)
    expect(await sessionUserId(page)).toBe(id)
    expect(await adapter.listAuthenticatorsByUserId?.(id as string)).toHaveLength(2)
    await page.close()
  }, 60_000)

  it("the signIn callback's redirect string is honoured: no session, no user", async () => {
    const { page } = await tab({ autofill: false })
    await register(page, "later@example.test")
    await page.waitForURL(`${base}/not-yet`)
    expect(await session(page)).toBeNull()
    expect(await adapter.getUserByEmail?.("later@example.test")).toBeNull()
    await page.close()
  }, 60_000)

  flowCheck?.(
    "a callbackUrl posted with the response (Auth.js' passkey client) is honoured when the options request named none; another origin falls back to the site",
    async () => {
      const first = await capturedSignIn("posted-callback@example.test", { asAuthJs: true })
      const honoured = await post(first.cookie, { ...first.fields, callbackUrl: `${base}/after?tab=passkeys` })
      expect(honoured.status).toBe(303)
      expect(honoured.headers.get("location")).toBe(`${base}/after?tab=passkeys`)
      expect(sessionCookie(honoured)).toBeDefined()

      const second = await capturedSignIn("posted-elsewhere@example.test", { asAuthJs: true })
      const elsewhere = await post(second.cookie, { ...second.fields, callbackUrl: "https://attacker.example/steal" })
      expect(elsewhere.status).toBe(303)
      expect(elsewhere.headers.get("location")).toBe(base)
      expect(sessionCookie(elsewhere)).toBeDefined()
    },
    60_000,
  )

  flowCheck?.(
    "a response answers its challenge once: resent as is → FlowStateError (the snapshot resumes once), without the flow state → FlowStateError",
    async () => {
      const { fields, cookie } = await capturedSignIn("replay@example.test")
      const first = await post(cookie, fields)
      expect(first.headers.get("location")).toBe(base)
      expect(sessionCookie(first)).toBeDefined()
      expectRefused(await post(cookie, fields), "/auth/signin?error=FlowStateError")
      expect(log.errors.at(-1)?.message).toMatch(/already used/)
      const withoutFlow = cookie
        .split("; ")
        .filter((c) => !c.startsWith("authchart.flow."))
        .join("; ")
      expectRefused(await post(withoutFlow, fields), "/auth/signin?error=FlowStateError")
    },
    60_000,
  )

  it("a registration resent with its sealed state is refused, and the passkey is stored once", async () => {
    const { page } = await tab({ autofill: false })
    const { fields, cookie } = await capture(page, () => register(page, "twice@example.test"))
    expect((await post(cookie, fields)).headers.get("location")).toBe(base)
    expectRefused(await post(cookie, fields), "/auth/signin?error=FlowStateError")
    const user = await adapter.getUserByEmail?.("twice@example.test")
    expect(await adapter.listAuthenticatorsByUserId?.(user?.id as string)).toHaveLength(1)
    await page.close()
  }, 60_000)

  flowCheck?.(
    "a response for another challenge → WebAuthnVerificationError",
    async () => {
      const { fields } = await capturedSignIn("other@example.test")
      const options = await fetch(`${base}/auth/webauthn-options/passkey?action=authenticate`)
      const flow = options.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ")
      expectRefused(await post(flow, fields), "/auth/error?error=WebAuthnVerificationError")
    },
    60_000,
  )

  it("a wrong origin or RP ID → WebAuthnVerificationError; an unknown credential → the documented error", async () => {
    const { fields, cookie } = await capturedSignIn("origin@example.test")
    const send = (config: ExpressAuthConfig, body: Record<string, string>) =>
      Auth(
        new Request(`${base}/auth/callback/passkey`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(body),
        }),
        config,
      )
    const otherOrigin = await send(authConfig({ relayingParty: { origin: "https://app.example" } }), fields)
    expectRefused(otherOrigin, "/auth/error?error=WebAuthnVerificationError")
    const otherRp = await send(authConfig({ relayingParty: { id: "example.test" } }), fields)
    expectRefused(otherRp, "/auth/error?error=WebAuthnVerificationError")

    const data = JSON.parse(fields.data as string) as { id: string; rawId: string }
    const unknown = JSON.stringify({ ...data, id: "AAAAAAAAAAAAAAAAAAAAAA", rawId: "AAAAAAAAAAAAAAAAAAAAAA" })
    expectRefused(await post(cookie, { ...fields, data: unknown }), "/auth/error?error=Configuration")
    expect(log.errors.some((e) => e.message.startsWith("WebAuthn authenticator not found"))).toBe(true)
  }, 60_000)

  flowCheck?.(
    "`action` missing or not the one issued → the documented error / WebAuthnVerificationError",
    async () => {
      const { fields } = await capturedSignIn("action@example.test")
      const { action: _action, ...withoutAction } = fields
      // each post spends its flow state, so each gets a fresh authentication flow
      const flow = async () =>
        (await fetch(`${base}/auth/webauthn-options/passkey?action=authenticate`)).headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ")
      expectRefused(await post(await flow(), withoutAction), "/auth/error?error=Configuration")
      expectRefused(await post(await flow(), { ...fields, action: "delete" }), "/auth/error?error=Configuration")
      expectRefused(await post(await flow(), { ...fields, action: "register" }), "/auth/error?error=WebAuthnVerificationError")
      expectRefused(await post(await flow(), { ...fields, data: "not json" }), "/auth/error?error=Configuration")
    },
    60_000,
  )

  flowCheck?.("options requests with bad input answer 400 JSON with a reason, and start nothing", async () => {
    await adapter.createUser?.({ id: randomUUID(), email: "known@example.test", emailVerified: null })
    const cases: Array<[string, Record<string, string>]> = [
      ["action=register", { error: "Missing email" }],
      ["action=register&email=not-an-address", { error: "Invalid email" }],
      ["action=sign-up&email=known@example.test", { error: "Invalid action" }],
      // a known user, signed out: Auth.js' reason, and what to do (tests/passkey-messages.test.ts)
      [
        "action=register&email=known@example.test",
        { error: "Invalid request", message: expect.stringContaining("already has an account") },
      ],
    ]
    for (const [query, reason] of cases) {
      const res = await fetch(`${base}/auth/webauthn-options/passkey?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.headers.get("content-type")).toBe("application/json")
      expect(await res.json()).toEqual(reason)
      expect(res.headers.getSetCookie().some((c) => c.startsWith("authchart.flow."))).toBe(false)
    }
  })
})
