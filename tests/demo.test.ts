/**
 * The demo app, walked like a person with a browser: follow links, read forms off the pages, submit them.
 */
import { once } from "node:events"
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_PASSWORD, DEMO_USER, createDemoApp, start } from "../demo/server.js"
import { CookieJar, captureLogger } from "./helpers.js"

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") return String.fromCodePoint(ref[1] === "x" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)))
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) {
    if (m[1]) out[m[1].toLowerCase()] = decodeEntities(m[2] ?? "")
  }
  return out
}

interface Form {
  action: string
  method: string
  fields: Record<string, string>
  inputs: Array<Record<string, string>>
}

/** Every `<form>` of a page with its inputs (hidden values prefilled). */
function forms(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => {
    const form = attributes(m[1] ?? "")
    const inputs = [...(m[2] ?? "").matchAll(/<input\b([^>]*)>/g)].map((i) => attributes(i[1] ?? ""))
    const fields: Record<string, string> = {}
    for (const input of inputs) if (input.name) fields[input.name] = input.value ?? ""
    return { action: form.action ?? "", method: (form.method ?? "GET").toUpperCase(), fields, inputs }
  })
}

const links = (html: string): string[] => [...html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((m) => decodeEntities(m[1] ?? ""))

class Person {
  readonly jar = new CookieJar()
  constructor(readonly origin: string) {}

  async visit(url: string, form?: Record<string, string>): Promise<Response> {
    const headers = new Headers()
    const cookie = this.jar.header()
    if (cookie) headers.set("cookie", cookie)
    const init: RequestInit = { headers, redirect: "manual" }
    if (form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      Object.assign(init, { method: "POST", body: new URLSearchParams(form).toString() })
    }
    const response = await fetch(new URL(url, this.origin), init)
    this.jar.apply(response)
    return response
  }

  /** Follows redirects like a browser (a 303 after a POST becomes a GET). */
  async follow(response: Response): Promise<{ response: Response; url: string; hops: string[] }> {
    const hops: string[] = []
    let url = response.url
    while (response.status === 302 || response.status === 303) {
      url = new URL(response.headers.get("location") ?? "", url).href
      hops.push(url)
      response = await this.visit(url)
    }
    return { response, url, hops }
  }
}

describe("demo app", () => {
  let server: Server
  let origin: string
  const printed: string[] = []
  const log = captureLogger()

  beforeAll(async () => {
    const started = await start(0, {
      host: "127.0.0.1",
      log: (line) => void printed.push(line),
      logger: log.logger,
    })
    server = started.server
    origin = started.url
  })

  afterAll(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, "close")
  })

  it("prints where it runs and how to sign in", () => {
    expect(printed[0]).toBe(`authchart demo on ${origin}`)
    expect(printed.join("\n")).toContain(`${DEMO_USER.email} / ${DEMO_PASSWORD}`)
  })

  it("home → protected → sign in → protected shows the user → sign out → protected redirects again", async () => {
    const person = new Person(origin)

    const home = await person.visit("/")
    expect(home.status).toBe(200)
    const homePage = await home.text()
    expect(homePage).toContain("Not signed in")
    expect(links(homePage)).toEqual(expect.arrayContaining(["/auth/signin", "/protected", "/auth/signout"]))

    // the protected page sends an anonymous visitor to sign in, and back afterwards
    const guarded = await person.visit("/protected")
    expect(guarded.status).toBe(302)
    expect(guarded.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Fprotected")
    const { response: signInPage, url: signInUrl } = await person.follow(guarded)
    expect(signInUrl).toBe(`${origin}/auth/signin?callbackUrl=%2Fprotected`)
    expect(signInPage.status).toBe(200)
    const [credentialsForm, ...others] = forms(await signInPage.text()).filter((f) => "password" in f.fields)
    expect(others).toEqual([])
    expect(credentialsForm?.method).toBe("POST")
    expect(credentialsForm?.action).toBe(`${origin}/auth/callback/credentials`)
    expect(credentialsForm?.fields.csrfToken).toMatch(/^[0-9a-f]{64}$/)
    expect(credentialsForm?.inputs.find((i) => i.name === "email")?.type).toBe("email")
    expect(credentialsForm?.inputs.find((i) => i.name === "password")?.type).toBe("password")
    if (!credentialsForm) return

    // a typo first: back to the sign-in page with a message
    const typo = await person.visit(credentialsForm.action, { ...credentialsForm.fields, email: DEMO_USER.email, password: "nope" })
    expect(typo.status).toBe(303)
    const { response: retry } = await person.follow(typo)
    expect(await retry.text()).toContain("Sign in failed. Check the details you provided are correct.")
    expect(person.jar.get("authjs.session-token")).toBeUndefined()

    const signedIn = await person.visit(credentialsForm.action, {
      ...credentialsForm.fields,
      email: DEMO_USER.email,
      password: DEMO_PASSWORD,
    })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get("location")).toBe(`${origin}/protected`)
    const { response: protectedPage } = await person.follow(signedIn)
    expect(protectedPage.status).toBe(200)
    const protectedHtml = await protectedPage.text()
    expect(protectedHtml).toContain(`Signed in as <strong>${DEMO_USER.email}</strong>`)
    const pre = /<pre>([\s\S]*?)<\/pre>/.exec(protectedHtml)?.[1] ?? ""
    expect(pre).not.toContain('"')
    const session = JSON.parse(decodeEntities(pre)) as { user: unknown; expires: string }
    expect(session.user).toEqual({ name: DEMO_USER.name, email: DEMO_USER.email })
    expect(Date.parse(session.expires)).toBeGreaterThan(Date.now())

    const homeSignedIn = await (await person.visit("/")).text()
    expect(homeSignedIn).toContain(`Signed in as <strong>${DEMO_USER.email}</strong>`)

    // sign out through the link: a confirmation page whose form posts the CSRF token
    expect(links(protectedHtml)).toContain("/auth/signout")
    const signOutPage = await person.visit("/auth/signout")
    expect(signOutPage.status).toBe(200)
    const [signOutForm] = forms(await signOutPage.text())
    expect(signOutForm?.action).toBe(`${origin}/auth/signout`)
    const signedOut = await person.visit(signOutForm?.action ?? "", signOutForm?.fields)
    expect(signedOut.status).toBe(303)
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    const { hops } = await person.follow(signedOut)
    expect(hops).toEqual([`${origin}/protected`, `${origin}/auth/signin?callbackUrl=%2Fprotected`])

    const again = await person.visit("/protected")
    expect(again.status).toBe(302)
    expect(again.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Fprotected")
    expect(await (await person.visit("/")).text()).toContain("Not signed in")
    expect(log.errors.map((e) => e.name)).toEqual(["CredentialsSignin"])
  })

  it("the guard sends the whole requested URL along as callbackUrl, encoded", async () => {
    const person = new Person(origin)
    const guarded = await person.visit("/protected?tab=<b>&x=1")
    expect(guarded.status).toBe(302)
    expect(guarded.headers.get("location")).toBe(
      `/auth/signin?callbackUrl=${encodeURIComponent("/protected?tab=%3Cb%3E&x=1")}`,
    )
  })

  it("uses AUTH_SECRET, else generates a secret and says so", () => {
    const saved = process.env.AUTH_SECRET
    try {
      delete process.env.AUTH_SECRET
      const generated = createDemoApp()
      expect(generated.secretGenerated).toBe(true)
      expect(String(generated.config.secret).length).toBeGreaterThanOrEqual(32)
      expect(createDemoApp().config.secret).not.toBe(generated.config.secret)
      process.env.AUTH_SECRET = "e".repeat(40)
      const fromEnv = createDemoApp()
      expect(fromEnv.secretGenerated).toBe(false)
      expect(fromEnv.config.secret).toBe("e".repeat(40))
    } finally {
      if (saved === undefined) delete process.env.AUTH_SECRET
      else process.env.AUTH_SECRET = saved
    }
  })
})
