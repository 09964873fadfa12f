/**
 * Attack class: clickjacking and content injection (CSP). Every page authchart serves (sign-in,
 * sign-out, verify-request, error, the configuration error page, a step page, the inspector) says: no
 * framing (`frame-ancestors 'none'` and `X-Frame-Options: DENY`), nothing but its own nonce'd style and
 * script (`default-src 'none'`), forms only to where sign-in really goes (`form-action`), no `<base>`,
 * no referrer, no sniffing; JSON answers say `nosniff` too. Over HTTP each header is checked on each
 * page; in Chromium each page renders and works (the passkey script, an OAuth sign-in through the
 * provider on another origin, the inspector's live diagrams) with no policy violation, injected markup
 * runs nothing, and a page on another origin cannot frame any of them, with either header alone.
 */
import { once } from "node:events"
import { type Server, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth } from "../../src/index.js"
import { AuthClient, SECRET } from "../helpers.js"
import { type Browser, authenticatorTab, launchBrowser } from "../support/browser.js"
import { totpCode } from "../../src/steps/totp.js"
import {
  BOB,
  PASSWORD,
  type PagesApp,
  TOTP_SECRET,
  TOTP_USERS,
  sessionEmail,
  startPagesApp,
  submitCredentials,
} from "../support/pages-app.js"

let app: PagesApp
beforeAll(async () => {
  app = await startPagesApp()
})
afterAll(() => app?.stop())

/** The directives of a Content-Security-Policy value, by name. */
function directives(policy: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const part of (policy ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name) out.set(name, values)
  }
  return out
}

type Fetched = { res: Response; html: string }

/** Each page, fetched as a browser would reach it. */
const PAGES: Record<string, () => Promise<Fetched>> = {
  "sign-in": () => get("/auth/signin"),
  "sign-out": () => get("/auth/signout"),
  "verify-request": () => get("/auth/verify-request"),
  error: () => get("/auth/error?error=AccessDenied"),
  "TOTP step": async () => {
    const client = new AuthClient(app.config, app.base)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, email: TOTP_USERS[3], password: PASSWORD } })
    return { res, html: await res.text() }
  },
  inspector: () => get("/auth/__inspect"),
}

async function get(path: string): Promise<Fetched> {
  const res = await fetch(`${app.base}${path}`)
  return { res, html: await res.text() }
}

describe("clickjacking and CSP: the headers of every page (HTTP)", () => {
  it.each(Object.keys(PAGES))("%s: framing refused, default-src 'none', style and script by this response's nonce only", async (name) => {
    const { res, html: page } = await (PAGES[name] as () => Promise<Fetched>)()
    expect(res.status).toBeLessThan(500)
    const html = page.replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/g, "$1</script>") // markup only
    const csp = directives(res.headers.get("content-security-policy"))
    expect(csp.get("frame-ancestors")).toEqual(["'none'"])
    expect(res.headers.get("x-frame-options")).toBe("DENY")
    expect(csp.get("default-src")).toEqual(["'none'"])
    expect(csp.get("base-uri")).toEqual(["'none'"])
    const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(csp.get("script-src")?.join(" ") ?? "")?.[1]
    expect(nonce).toBeDefined()
    expect(csp.get("style-src")).toEqual([`'nonce-${nonce}'`])
    // every style and script element of the page carries it, and no inline handler or style attribute exists
    const elements = [...html.matchAll(/<(style|script)\b([^>]*)>/g)].filter((m) => !/type="application\/json"/.test(m[2] ?? ""))
    expect(elements.length).toBeGreaterThan(0)
    for (const element of elements) expect(element[2]).toContain(`nonce="${nonce}"`)
    expect(html).not.toMatch(/\son[a-z]+=/i)
    if (name !== "inspector") expect(html).not.toMatch(/\sstyle=/i)
    expect(res.headers.get("referrer-policy")).toBe("no-referrer")
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("a fresh nonce on every response", async () => {
    const nonces = await Promise.all([1, 2, 3].map(async () => (await get("/auth/signin")).res.headers.get("content-security-policy")))
    expect(new Set(nonces).size).toBe(3)
  })

  it("the sign-in page's forms may go to this origin and the OpenID provider's authorization endpoint, nowhere else", async () => {
    const { res } = await get("/auth/signin")
    const csp = directives(res.headers.get("content-security-policy"))
    expect(csp.get("form-action")).toEqual(["'self'", app.base, app.idp.issuer])
    // the passkey script asks its options from this origin only; images only from here
    expect(csp.get("connect-src")).toEqual([app.base])
    expect(csp.get("img-src")).toEqual(["'self'"])
  })

  it("pages without forms allow none; a step page's form goes to this origin; the inspector fetches only from itself", async () => {
    for (const path of ["/auth/verify-request", "/auth/error?error=Verification"]) {
      expect(directives((await get(path)).res.headers.get("content-security-policy")).get("form-action")).toEqual(["'none'"])
    }
    const step = directives((await (PAGES["TOTP step"] as () => Promise<Fetched>)()).res.headers.get("content-security-policy"))
    expect(step.get("form-action")).toEqual(expect.arrayContaining(["'self'", app.base]))
    expect(step.has("connect-src")).toBe(false)
    const inspector = directives((await get("/auth/__inspect")).res.headers.get("content-security-policy"))
    expect(inspector.get("connect-src")).toEqual(["'self'"])
    expect(inspector.get("form-action")).toEqual(["'none'"])
  })

  it("the configuration error page carries the same headers", async () => {
    const res = await Auth(new Request("http://app.test/auth/signin"), { providers: [], trustHost: true, logger: { error: () => {} } })
    expect(res.status).toBe(500)
    const csp = directives(res.headers.get("content-security-policy"))
    expect(csp.get("frame-ancestors")).toEqual(["'none'"])
    expect(csp.get("default-src")).toEqual(["'none'"])
    expect(res.headers.get("x-frame-options")).toBe("DENY")
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("JSON answers say nosniff (session, csrf, providers, passkey options, X-Auth-Return-Redirect)", async () => {
    const client = new AuthClient({ ...app.config, secret: SECRET }, app.base)
    const answers = [
      await client.send("/auth/session"),
      await client.send("/auth/csrf"),
      await client.send("/auth/providers"),
      await client.send("/auth/webauthn-options/passkey?action=register"),
      await client.send("/auth/signin/idp", { form: { csrfToken: await client.csrf() }, headers: { "x-auth-return-redirect": "1" } }),
    ]
    for (const res of answers) {
      expect(res.headers.get("content-type")).toContain("application/json")
      expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    }
  })
})

describe("clickjacking and CSP in Chromium", () => {
  let browser: Browser
  let attacker: Server
  let attackerOrigin: string
  beforeAll(async () => {
    browser = await launchBrowser()
    // a page on another origin that frames whatever `?src=` names
    attacker = createServer((req, res) => {
      const src = new URL(req.url ?? "/", "http://x").searchParams.get("src") ?? ""
      res.setHeader("content-type", "text/html")
      res.end(
        `<!DOCTYPE html><title>win a prize</title><iframe id="victim" src="${src.replace(/"/g, "")}" width="600" height="600"></iframe>`,
      )
    })
    attacker.listen(0, "127.0.0.1")
    await once(attacker, "listening")
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await browser?.close()
    attacker?.close()
  })

  /**
   * A tab (with no cookies in the browser) recording every policy violation: the event, and Chromium's
   * console report. `done()` expects none and closes the tab.
   */
  async function watchedTab(page?: Page): Promise<{ page: Page; violations: () => Promise<string[]>; done: () => Promise<void> }> {
    await browser.context.clearCookies()
    const tab = page ?? (await browser.context.newPage())
    const reported: string[] = []
    tab.on("console", (msg) => {
      if (/Content Security Policy/i.test(msg.text())) reported.push(msg.text())
    })
    await tab.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { __violations: string[] }).__violations = seen
      document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`))
    })
    const violations = async () => [
      ...reported,
      ...(await tab.evaluate(() => (window as unknown as { __violations: string[] }).__violations)),
    ]
    const done = async () => {
      expect(await violations()).toEqual([])
      await tab.close()
    }
    return { page: tab, violations, done }
  }

  it("every page renders styled, with no policy violation", async () => {
    const { page, done } = await watchedTab()
    for (const path of [
      "/auth/signin",
      "/auth/signout",
      "/auth/verify-request",
      "/auth/error?error=Verification",
      "/auth/signin?error=OAuthCallbackError",
    ]) {
      await page.goto(`${app.base}${path}`)
      // the page's own stylesheet applied: the card has the built-in border radius
      expect(await page.locator(".card").evaluate((el) => getComputedStyle(el).borderTopLeftRadius), path).toBe("8px")
    }
    // the passkey script loaded (by nonce) and set its form up
    await page.goto(`${app.base}/auth/signin`)
    expect(await page.evaluate(() => typeof (window as unknown as { SimpleWebAuthnBrowser?: unknown }).SimpleWebAuthnBrowser)).toBe(
      "object",
    )
    await done()
  }, 60_000)

  it("a step page renders and works: wrong code, reload, right code, with no policy violation", async () => {
    const { page, done } = await watchedTab()
    await submitCredentials(page, app.base, TOTP_USERS[2])
    await page.locator("h1", { hasText: "Enter your authentication code" }).waitFor()
    expect(await page.locator(".card").evaluate((el) => getComputedStyle(el).borderTopLeftRadius)).toBe("8px")
    await page.fill("#totp-code", "000000")
    await page.click("#submitButton")
    await page.locator('[role="alert"]', { hasText: "That code is not valid" }).waitFor()
    await page.goto(page.url())
    await page.locator("h1", { hasText: "Enter your authentication code" }).waitFor()
    await page.fill("#totp-code", totpCode(TOTP_SECRET))
    await page.click("#submitButton")
    await page.waitForURL(`${app.base}/`)
    await done()
  }, 60_000)

  it("the passkey script works under the policy: registering from the page signs in", async () => {
    const { page, done } = await watchedTab(await authenticatorTab(browser))
    await page.goto(`${app.base}/auth/signin`)
    await page.fill("#input-email-for-passkey-provider", "csp-passkey@example.test")
    await page.click("text=Register with Passkey")
    await page.waitForURL(`${app.base}/`)
    expect(await sessionEmail(page, app.base)).toBe("csp-passkey@example.test")
    await done()
  }, 60_000)

  it("an OAuth sign-in from the page reaches the provider on another origin and back (form-action holds the redirect)", async () => {
    const { page, done } = await watchedTab()
    await page.goto(`${app.base}/auth/signin`)
    await page.click("text=Sign in with IdP")
    await page.waitForURL(`${app.idp.issuer}/interaction/**`)
    await page.fill('input[name="account"]', BOB)
    await page.click('button[value="allow"]')
    await page.locator('form[data-prompt="consent"]').waitFor()
    await page.click('button[value="allow"]')
    await page.waitForURL(`${app.base}/`)
    expect(await sessionEmail(page, app.base)).toBe(BOB)
    await done()
  }, 60_000)

  it("the inspector draws its diagrams and follows flows live, with no policy violation", async () => {
    const { page, done } = await watchedTab()
    await page.goto(`${app.base}/auth/__inspect`)
    await page.locator('article.diagram[data-flow="credentials"][data-rendered="true"] svg').waitFor({ timeout: 30_000 })
    await page.locator('#status[data-state="live"]').waitFor()
    await done()
  }, 60_000)

  it("markup injected into a page runs no script, no handler and no style", async () => {
    const { page, violations } = await watchedTab()
    await page.goto(`${app.base}/auth/signin`)
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        "beforeend",
        `<img src="/x.png" onerror="window.__pwned = 1"><style>body{display:none}</style><div id="styled" style="color: rgb(1, 2, 3)">x</div>`,
      )
      const script = document.createElement("script")
      script.textContent = "window.__pwned = 2"
      document.body.append(script)
    })
    await expect.poll(async () => (await violations()).length).toBeGreaterThanOrEqual(3)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(await page.evaluate(() => getComputedStyle(document.body).display)).not.toBe("none")
    expect(await page.locator("#styled").evaluate((el) => getComputedStyle(el).color)).not.toBe("rgb(1, 2, 3)")
    await page.close()
  }, 60_000)

  /** Frames `path` from the attacker's origin; true when the frame shows the page. */
  async function framed(path: string, strip?: "content-security-policy" | "x-frame-options"): Promise<boolean> {
    const page = await browser.context.newPage()
    if (strip) {
      await page.route(`${app.base}/**`, async (route) => {
        const response = await route.fetch()
        const headers = { ...response.headers() }
        delete headers[strip]
        await route.fulfill({ response, headers })
      })
    }
    await page.goto(`${attackerOrigin}/?src=${encodeURIComponent(`${app.base}${path}`)}`)
    await page.locator("#victim").waitFor()
    const frame = await (await page.locator("#victim").elementHandle())?.contentFrame()
    await frame?.waitForLoadState("load").catch(() => {})
    const shown = frame
      ? await frame
          .locator("form, .card, h1, p")
          .count()
          .catch(() => 0)
      : 0
    const url = frame?.url() ?? ""
    await page.close()
    return shown > 0 && url.startsWith(app.base)
  }

  it("a page on another origin can frame a page without the headers (the test's control)", async () => {
    expect(await framed("/")).toBe(true)
  }, 60_000)

  it.each([
    "/auth/signin",
    "/auth/signout",
    "/auth/error?error=AccessDenied",
    "/auth/__inspect",
  ])("framing %s is refused: by frame-ancestors alone, and by X-Frame-Options alone", async (path) => {
    expect(await framed(path)).toBe(false)
    expect(await framed(path, "x-frame-options")).toBe(false)
    expect(await framed(path, "content-security-policy")).toBe(false)
  }, 60_000)
})
