/**
 * The demo's account page (demo/account.ts), walked like two people's browsers: the home page links it;
 * the Demo User signs in on a laptop and a phone, both sessions are listed (this browser marked), the
 * laptop signs the phone out, then every other session; the laptop links the Demo IdP (signing in with
 * it while signed in), sees it listed, unlinks it; the sign-out button ends the session. Real HTTP, the
 * Demo IdP included. Its own demo instance, so the linked IdP account is no one else's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_PASSWORD, DEMO_USER, type RunningDemo, start } from "../demo/server.js"
import { captureLogger } from "./helpers.js"
import { type Form, Person, formSaying, forms, links, visibleText } from "./support/demo-person.js"

let demo: RunningDemo
let origin: string
const log = captureLogger()

beforeAll(async () => {
  demo = await start(0, { host: "127.0.0.1", env: {}, log: () => {}, logger: log.logger })
  origin = demo.url
})
afterAll(() => demo?.stop())

/** Signs the Demo User in through the sign-in page's credentials form; answers the account page's HTML. */
async function signIn(person: Person): Promise<string> {
  const { response } = await person.follow(await person.visit("/account"))
  const [form] = forms(await response.text()).filter((f) => "password" in f.fields)
  const signedIn = await person.visit((form as Form).action, { ...form?.fields, email: DEMO_USER.email, password: DEMO_PASSWORD })
  const { response: account, url } = await person.follow(signedIn)
  expect(url).toBe(`${origin}/account`)
  return account.text()
}

/** The session items of the account page, as a person reads them. */
const sessionItems = (html: string) =>
  [...(/<ul class="sessions">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? "").matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((m) =>
    visibleText(m[1] ?? ""),
  )

/** Submits a form of the account page and follows the answer back; answers the page it lands on. */
async function press(person: Person, form: Form): Promise<{ html: string; url: string }> {
  expect(form.method).toBe("POST")
  expect(form.fields.callbackUrl).toBeDefined()
  const { response, url } = await person.follow(await person.visit(form.action, form.fields))
  return { html: await response.text(), url }
}

describe("the demo's account page", () => {
  it("is linked from the home page and asks an anonymous visitor to sign in first", async () => {
    const person = new Person(origin)
    expect(links(await (await person.visit("/")).text())).toContain("/account")
    const guarded = await person.visit("/account")
    expect(guarded.status).toBe(302)
    expect(guarded.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount")
  })

  it("two browsers are listed; the laptop signs the phone out, then every other session", async () => {
    const laptop = new Person(origin)
    const phone = new Person(origin)
    await signIn(laptop)
    const phonePage = await signIn(phone)
    const phoneId = formSaying(phonePage, "Sign out this browser").fields.id as string

    const laptopPage = await (await laptop.visit("/account")).text()
    const items = sessionItems(laptopPage)
    expect(items.length).toBeGreaterThanOrEqual(2)
    expect(items.filter((text) => text.includes("(this browser)"))).toHaveLength(1)
    expect(items.every((text) => /signed in \d{4}-\d\d-\d\d \d\d:\d\d UTC ?, last seen \d{4}-\d\d-\d\d/.test(text))).toBe(true)
    expect(laptopPage).not.toContain(phone.jar.get("authjs.session-token") as string)

    const phoneForm = forms(laptopPage).find((f) => f.fields.id === phoneId) as Form
    expect(phoneForm.action).toBe("/auth/revoke-session")
    const after = await press(laptop, phoneForm)
    expect(after.url).toBe(`${origin}/account`)
    expect(forms(after.html).some((f) => f.fields.id === phoneId)).toBe(false)
    const signedOut = await phone.visit("/account")
    expect(signedOut.status).toBe(302)

    const tablet = new Person(origin)
    await signIn(tablet)
    const { html: alone } = await press(laptop, formSaying(await (await laptop.visit("/account")).text(), "Sign out all other sessions"))
    expect(sessionItems(alone)).toEqual([expect.stringContaining("(this browser)")])
    expect((await tablet.visit("/account")).status).toBe(302)
  })

  it("link the Demo IdP while signed in, see it listed, unlink it; then sign out", async () => {
    const laptop = new Person(origin)
    const page = await signIn(laptop)
    expect(visibleText(/<h2>Linked providers<\/h2>([\s\S]*?)<h2>/.exec(page)?.[1] ?? "")).toContain("None yet.")

    const link = formSaying(page, "Link Demo IdP")
    expect(link.action).toBe("/auth/signin/demo-idp")
    const { response: loginPage, url: loginUrl } = await laptop.follow(await laptop.visit(link.action, link.fields))
    expect(new URL(loginUrl).origin).toBe(demo.idp.issuer)
    const bob = formSaying(await loginPage.text(), "bob@example.test")
    const { response: back, url } = await laptop.follow(await laptop.visit(new URL(bob.action, loginUrl).href, bob.fields))
    expect(url).toBe(`${origin}/account`)
    const linked = await back.text()
    // still the Demo User, now with the Demo IdP account linked
    expect(linked).toContain(`Signed in as <strong>${DEMO_USER.email}</strong>`)
    expect(visibleText(/<ul class="accounts">([\s\S]*?)<\/ul>/.exec(linked)?.[1] ?? "")).toBe("Demo IdP Unlink Demo IdP")
    expect(forms(linked).some((f) => f.text === "Link Demo IdP")).toBe(false)

    const { html: unlinked } = await press(laptop, formSaying(linked, "Unlink Demo IdP"))
    expect(unlinked).not.toContain('class="accounts"')
    expect(formSaying(unlinked, "Link Demo IdP").action).toBe("/auth/signin/demo-idp")

    const signOut = forms(unlinked).find((f) => f.text === "Sign out") as Form
    expect(signOut.action).toBe("/auth/signout")
    const { url: home } = await press(laptop, signOut)
    expect(home).toBe(`${origin}/`)
    expect(laptop.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors).toEqual([])
  })
})
