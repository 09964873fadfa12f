/**
 * The demo's two-step user and its inspector, walked like a person: the home page says how to sign in
 * as the TOTP user and links the inspector; password, then a code computed from the user's secret as an
 * authenticator app would; the account page shows the enrolment QR code; the inspector page loads and
 * has followed that sign-in. Neither the inspector nor its link exists with NODE_ENV=production.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_PASSWORD, DEMO_TOTP_USER, DEMO_USER, type RunningDemo, createDemoApp, start } from "../demo/server.js"
import type { FlowRecord } from "../src/inspect/index.js"
import { totpCode } from "../src/steps/totp.js"
import { captureLogger } from "./helpers.js"
import { type Form, Person, forms, links, serving, sessionShown, visibleText } from "./support/demo-person.js"

let demo: RunningDemo
let origin: string
const printed: string[] = []
const log = captureLogger()

beforeAll(async () => {
  demo = await start(0, { host: "127.0.0.1", env: {}, log: (line) => void printed.push(line), logger: log.logger })
  origin = demo.url
})
afterAll(() => demo?.stop())

/** The credentials form of the sign-in page the protected page sends an anonymous person to. */
async function credentialsForm(person: Person): Promise<Form> {
  const { response } = await person.follow(await person.visit("/protected"))
  const [form] = forms(await response.text()).filter((f) => "password" in f.fields)
  expect(form?.action).toBe(`${origin}/auth/callback/credentials`)
  return form as Form
}

/** The form of a step page that asks for a 6-digit code. */
function codeForm(html: string): Form {
  const found = forms(html).filter((f) => "code" in f.fields)
  expect(found).toHaveLength(1)
  return found[0] as Form
}

describe("the demo's two-step (TOTP) user", () => {
  it("the home page and the start-up lines say how to sign in as them, with the key", async () => {
    const home = await (await new Person(origin).visit("/")).text()
    const hint = visibleText(/<p class="totp-user">([\s\S]*?)<\/p>/.exec(home)?.[1] ?? "")
    expect(hint).toContain(`${DEMO_TOTP_USER.email} / ${DEMO_PASSWORD} with Credentials`)
    expect(hint).toContain(`set up with the key ${demo.totp.secret}`)
    expect(links(home)).toEqual(expect.arrayContaining(["/account", "/auth/__inspect"]))
    expect(printed.join("\n")).toContain(
      `or, with two-step sign-in, as ${DEMO_TOTP_USER.email} / ${DEMO_PASSWORD}, then the code of an authenticator app with the key ${demo.totp.secret} (QR code on ${origin}/account)`,
    )
    expect(printed).toContain(`  inspector (development only): ${origin}/auth/__inspect`)
  })

  it("password → the code page → a wrong code is refused → the app's code signs in → the account page shows the QR code", async () => {
    const person = new Person(origin)
    const form = await credentialsForm(person)
    const asked = await person.visit(form.action, { ...form.fields, email: DEMO_TOTP_USER.email, password: DEMO_PASSWORD })
    expect(asked.status).toBe(200)
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    const step = codeForm(await asked.text())
    expect(step.method).toBe("POST")
    expect(step.action).toBe(`${origin}/auth/callback/credentials`)
    expect(step.fields.step).toBe("totp")

    // a code from ten minutes ahead is outside the accepted window
    const wrong = await person.visit(step.action, { ...step.fields, code: totpCode(demo.totp.secret, Date.now() + 600_000) })
    expect(wrong.status).toBe(200)
    const retryHtml = await wrong.text()
    expect(visibleText(retryHtml)).toContain("That code is not valid. Try again.")
    expect(person.jar.get("authjs.session-token")).toBeUndefined()

    const right = await person.visit(step.action, { ...codeForm(retryHtml).fields, code: totpCode(demo.totp.secret) })
    expect(right.status).toBe(303)
    expect(right.headers.get("location")).toBe(`${origin}/protected`)
    const { response: protectedPage } = await person.follow(right)
    const protectedHtml = await protectedPage.text()
    expect(protectedHtml).toContain(`Signed in as <strong>${DEMO_TOTP_USER.email}</strong>`)
    expect(sessionShown(protectedHtml).user).toEqual({ name: DEMO_TOTP_USER.name, email: DEMO_TOTP_USER.email })

    const account = await person.visit("/account")
    expect(account.status).toBe(200)
    expect(account.headers.get("cache-control")).toBe("no-store")
    const accountHtml = await account.text()
    expect(accountHtml).toMatch(/<figure class="totp-qr"><svg [^>]*>[\s\S]*<\/svg>/)
    expect(accountHtml).toContain(`<code class="totp-key">${demo.totp.secret}</code>`)
    expect(demo.totp.uri).toBe(
      `otpauth://totp/authchart%20demo:totp%40example.test?secret=${demo.totp.secret}&issuer=authchart+demo&algorithm=SHA1&digits=6&period=30`,
    )
  })

  it("the password user signs in without a code, and their account page shows no QR code", async () => {
    const person = new Person(origin)
    const form = await credentialsForm(person)
    const signedIn = await person.visit(form.action, { ...form.fields, email: DEMO_USER.email, password: DEMO_PASSWORD })
    expect(signedIn.status).toBe(303)
    const accountHtml = await (await person.visit("/account")).text()
    expect(accountHtml).toContain("Off for this account.")
    expect(accountHtml).not.toContain("<svg")
    expect(accountHtml).not.toContain(demo.totp.secret)
    // the account page is for signed-in people only
    const anonymous = await new Person(origin).visit("/account")
    expect(anonymous.status).toBe(302)
    expect(anonymous.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Faccount")
  })
})

describe("the demo's inspector", () => {
  it("its page draws the two-step flow, and its state has followed the two-step sign-in", async () => {
    const person = new Person(origin)
    const page = await person.visit("/auth/__inspect")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    const html = await page.text()
    expect(html).toContain("<title>authchart inspector</title>")
    expect(html).toContain('<article class="diagram" data-flow="credentials"')
    expect(html).toContain("totp_waiting --&#62; totp_checking: STEP")

    const state = (await (await person.visit("/auth/__inspect-state")).json()) as { flows: FlowRecord[] }
    const twoStep = state.flows.find((f) => f.events.some((e) => e.type === "persist" && e.state === "totp.waiting"))
    expect(twoStep).toMatchObject({ flow: "credentials", status: "done", state: "done" })
    expect(JSON.stringify(state)).not.toContain(DEMO_PASSWORD)
    expect(JSON.stringify(state)).not.toContain(demo.totp.secret)
  })

  it("does not exist with NODE_ENV=production: no route, no link", async () => {
    const quiet = captureLogger()
    const production = createDemoApp({ env: { NODE_ENV: "production" }, secret: "s".repeat(40), logger: quiet.logger })
    expect(production.inspectorUrl).toBeUndefined()
    await serving(production.app, async (at) => {
      const person = new Person(at)
      const refused = await person.visit("/auth/__inspect")
      expect(refused.status).toBeGreaterThanOrEqual(400)
      expect(await refused.text()).not.toContain("authchart inspector")
      expect(links(await (await person.visit("/")).text())).not.toContain("/auth/__inspect")
    })
  })
})
