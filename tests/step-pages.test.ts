/**
 * Extra steps' pages: the built-in TOTP step and an app's own step render in the
 * sign-in page's themed card (doctype, viewport, theme, brand colour, the page's CSS under its CSP nonce)
 * with the message of a wrong answer, the attempts left and a "Cancel and start over" link; an app may
 * opt out with a whole page of its own. Reloading a step's page (GET on the callback URL) shows the step
 * again, for credentials and OAuth; with no sign-in in progress it says the sign-in expired. Never
 * `error=Configuration`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { type AuthConfig, credentialsFlow, defineStep, escapeHtml, extendFlow } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { totpCode } from "../src/steps/totp.js"
import { AuthClient, SECRET, captureLogger } from "./helpers.js"
import { ADA, BRAND_COLOR, PASSWORD, type PagesApp, TOTP_SECRET, TOTP_USERS, startPagesApp } from "./support/pages-app.js"

let app: PagesApp
beforeAll(async () => {
  app = await startPagesApp()
})
afterAll(() => app?.stop())

/** The CSP nonce of a response, and the nonces of the page's elements: they must be the same. */
function nonces(res: Response, html: string): { header: string | undefined; elements: string[] } {
  const header = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1]
  return { header, elements: [...html.matchAll(/<(?:style|script)\b[^>]*\snonce="([^"]+)"/g)].map((m) => m[1] as string) }
}

async function atTotpStep(client: AuthClient, email: string = ADA): Promise<{ res: Response; html: string; csrfToken: string }> {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, email, password: PASSWORD, callbackUrl: "/home" } })
  return { res, html: await res.text(), csrfToken }
}

const code = (client: AuthClient, csrfToken: string, value: string) =>
  client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: value } })

describe("step pages in the themed card", () => {
  it("the TOTP step: the sign-in page's document, theme and brand colour, its form and a cancel link", async () => {
    const client = new AuthClient(app.config, app.base)
    const { res, html, csrfToken } = await atTotpStep(client)
    expect(res.status).toBe(200)
    expect(html).toMatch(
      /^<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style nonce="/,
    )
    expect(html).toContain('<body class="__next-auth-theme-auto">')
    expect(html).toContain(`--brand-color:${BRAND_COLOR};`)
    expect(html).toContain('<div class="step"><div class="card"><h1>Enter your authentication code</h1>')
    expect(html).toContain(`<form method="POST" action="${app.base}/auth/callback/credentials">`)
    expect(html).toContain('<input type="hidden" name="step" value="totp">')
    expect(html).toContain(`<input type="hidden" name="csrfToken" value="${csrfToken}">`)
    expect(html).toContain('name="code" inputmode="numeric" autocomplete="one-time-code"')
    expect(html).toContain('<button id="submitButton" type="submit">Verify</button>')
    const cancel = `${app.base}/auth/signin?callbackUrl=${encodeURIComponent(`${app.base}/home`)}`
    expect(html).toContain(`<p class="cancel"><a href="${escapeHtml(cancel)}">Cancel and start over</a></p>`)
    expect(html).not.toContain('role="alert"')
    expect(html).not.toContain("attempts left")
    const { header, elements } = nonces(res, html)
    expect(elements).toEqual([header])
  })

  it("a wrong code: the message as an alert and the attempts left; the right code then signs in", async () => {
    const client = new AuthClient(app.config, app.base)
    const { csrfToken } = await atTotpStep(client)
    const first = await (await code(client, csrfToken, "000000")).text()
    expect(first).toContain('<div class="error" role="alert"><p>That code is not valid. Try again.</p></div>')
    expect(first).toContain('<p class="hint" data-attempts-left="4">4 attempts left.</p>')
    const second = await (await code(client, csrfToken, "000000")).text()
    expect(second).toContain('data-attempts-left="3">3 attempts left.</p>')
    const done = await code(client, csrfToken, totpCode(TOTP_SECRET))
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${app.base}/home`)
  })

  describe("an app's own step", () => {
    const log = captureLogger()
    const config = (page: NonNullable<Parameters<typeof defineStep>[0]["page"]>): AuthConfig => ({
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      logger: log.logger,
      theme: { colorScheme: "dark" },
      providers: [Credentials({ credentials: { username: { label: "Username" } }, authorize: () => ({ id: "7", name: "Pat" }) })],
      flows: [
        extendFlow(credentialsFlow, [
          defineStep({
            id: "terms",
            maxAttempts: 3,
            page,
            submit: ({ params }) => params.accept === "yes" || { result: "retry", message: "Please accept the terms." },
          }),
        ]),
      ],
    })
    const signIn = async (client: AuthClient) => {
      const csrfToken = await client.csrf()
      return { csrfToken, res: await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat" } }) }
    }

    it("returns only its fields: they are shown in the card with its title, its retry message and the attempts left", async () => {
      const client = new AuthClient(
        config(() => ({
          title: "Terms of use",
          submitLabel: "Accept",
          fields: `<label><input type="checkbox" name="accept" value="yes"> I accept</label>`,
        })),
      )
      const { csrfToken, res } = await signIn(client)
      const html = await res.text()
      expect(html).toContain('<body class="__next-auth-theme-dark">')
      expect(html).toContain('<h1>Terms of use</h1><form method="POST"')
      expect(html).toContain('<input type="hidden" name="step" value="terms"><input type="hidden" name="csrfToken"')
      expect(html).toContain(
        '<label><input type="checkbox" name="accept" value="yes"> I accept</label><button id="submitButton" type="submit">Accept</button>',
      )
      const retry = await (await client.send("/auth/callback/credentials", { form: { csrfToken, step: "terms" } })).text()
      expect(retry).toContain(
        '<div class="error" role="alert"><p>Please accept the terms.</p></div><p class="hint" data-attempts-left="2">2 attempts left.</p>',
      )
      const done = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "terms", accept: "yes" } })
      expect(done.status).toBe(303)
    })

    it("a plain string is its fields, with the default title and button", async () => {
      const { res } = await signIn(new AuthClient(config(() => `<input name="accept" value="yes" type="hidden">`)))
      const html = await res.text()
      expect(html).toContain("<title>One more step</title>")
      expect(html).toContain('<input name="accept" value="yes" type="hidden"><button id="submitButton" type="submit">Continue</button>')
    })

    it("opts out with a whole page of its own, which gets the response's nonce for its style", async () => {
      const client = new AuthClient(
        config(({ action, csrfToken, step, nonce, maxAttempts }) => ({
          document: `<!DOCTYPE html><title>own</title><style nonce="${nonce}">p{color:red}</style><form method="post" action="${action}"><input type="hidden" name="step" value="${step}"><input type="hidden" name="csrfToken" value="${csrfToken}"><p>up to ${maxAttempts} tries</p><button name="accept" value="yes">OK</button></form>`,
        })),
      )
      const { res } = await signIn(client)
      const html = await res.text()
      expect(html).toMatch(/^<!DOCTYPE html><title>own<\/title>/)
      expect(html).not.toContain('class="card"')
      expect(html).toContain("<p>up to 3 tries</p>")
      const { header, elements } = nonces(res, html)
      expect(elements).toEqual([header])
    })
  })
})

describe("reloading a step's page", () => {
  it("credentials: a GET of the callback URL shows the step again (message kept), and the step still finishes", async () => {
    const client = new AuthClient(app.config, app.base)
    const errorsBefore = app.log.errors.length
    const { csrfToken } = await atTotpStep(client, TOTP_USERS[1])
    await code(client, csrfToken, "000000")
    const reload = await client.send("/auth/callback/credentials")
    expect(reload.status).toBe(200)
    const html = await reload.text()
    expect(html).toContain("<h1>Enter your authentication code</h1>")
    expect(html).toContain("That code is not valid. Try again.")
    expect(html).not.toContain("server configuration")
    const again = await client.send("/auth/callback/credentials")
    expect(again.status).toBe(200)
    const done = await code(client, csrfToken, totpCode(TOTP_SECRET))
    expect(done.headers.get("location")).toBe(`${app.base}/home`)
    expect(app.log.errors.slice(errorsBefore)).toEqual([])
  })

  it("OAuth: reloading the callback URL (with the used code and state) shows the step again", async () => {
    const client = new AuthClient(app.config, app.base)
    const csrfToken = await client.csrf()
    const start = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/home" } })
    const answer = (await app.idp.authorize(start.headers.get("location") as string, { account: "alice@example.test" })) as { url: string }
    const callback = new URL(answer.url)
    const first = await client.send(`${callback.pathname}${callback.search}`)
    expect(await first.text()).toContain("<h1>Enter your authentication code</h1>")
    const reload = await client.send(`${callback.pathname}${callback.search}`)
    expect(reload.status).toBe(200)
    expect(await reload.text()).toContain("<h1>Enter your authentication code</h1>")
    const done = await client.send("/auth/callback/idp", { form: { csrfToken, step: "totp", code: totpCode(TOTP_SECRET) } })
    expect(done.headers.get("location")).toBe(`${app.base}/home`)
  })

  it("with no sign-in in progress: the sign-in page says it expired, start again (FlowStateError, logged once)", async () => {
    const client = new AuthClient(app.config, app.base)
    const errorsBefore = app.log.errors.length
    const res = await client.send("/auth/callback/credentials")
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe(`${app.base}/auth/signin?error=FlowStateError`)
    const page = await (await client.send("/auth/signin?error=FlowStateError")).text()
    expect(page).toContain("This sign-in attempt expired or was already used. Please start again.")
    expect(app.log.errors.slice(errorsBefore).map((e) => (e as { type?: string }).type)).toEqual(["FlowStateError"])
  })
})
