/**
 * The demo app, walked like a person with a browser: follow links, read forms off the pages, submit them.
 * Real HTTP throughout, the Demo IdP and the demo's SMTP mailbox included; the browser keeps one cookie
 * jar per origin.
 */
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { createTransport } from "nodemailer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_IDP_ACCOUNTS, DEMO_PASSWORD, DEMO_USER, type RunningDemo, createDemoApp, start } from "../demo/server.js"
import { captureLogger } from "./helpers.js"
import { Person, decodeEntities, formSaying, forms, links, serving, sessionShown, visibleText } from "./support/demo-person.js"

/** The `<li>` items of the mailbox page, newest first: what a person reads, and the links. */
function mailboxItems(html: string): Array<{ text: string; links: string[] }> {
  const list = /<ol class="mailbox">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? ""
  return [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => ({ text: visibleText(m[1] ?? ""), links: links(m[1] ?? "") }))
}

describe("demo app", () => {
  let demo: RunningDemo
  let origin: string
  const printed: string[] = []
  const log = captureLogger()

  beforeAll(async () => {
    demo = await start(0, {
      host: "127.0.0.1",
      env: {},
      log: (line) => void printed.push(line),
      logger: log.logger,
    })
    origin = demo.url
  })

  afterAll(() => demo?.stop())

  it("prints where it runs and how to sign in", () => {
    expect(printed[0]).toBe(`authchart demo on ${origin}`)
    const text = printed.join("\n")
    expect(text).toContain(`${DEMO_USER.email} / ${DEMO_PASSWORD}`)
    expect(text).toContain(`"Sign in with Demo IdP" (${demo.idp.issuer}): pick alice@example.test or bob@example.test, no password`)
    expect(text).toContain(
      `"Sign in with Email" with any address: the link is printed here and shown on ${origin}/dev/mailbox (SMTP on ${demo.mailbox.url})`,
    )
    expect(text).toContain(
      `"Sign in with Code by email" with any address: the 6-digit code is printed here and shown on ${origin}/dev/mailbox; type it on the next page`,
    )
    expect(text).toContain("providers: Credentials, Demo IdP, Email, Code by email, Passkey\n")
    // the three ports, and the variables that move them
    const idpPort = new URL(demo.idp.issuer).port
    expect(text).toContain(
      `  ports: the app ${new URL(origin).port} (PORT), the Demo IdP ${idpPort} (DEMO_IDP_PORT), SMTP ${demo.mailbox.port} (DEMO_SMTP_PORT); to move them: PORT=4000 DEMO_IDP_PORT=4001 DEMO_SMTP_PORT=2525 npm run demo`,
    )
    expect(demo.idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(demo.idp.issuer).not.toBe(origin)
    expect(demo.mailbox.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/)
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
    expect(guarded.headers.get("location")).toBe(`/auth/signin?callbackUrl=${encodeURIComponent("/protected?tab=%3Cb%3E&x=1")}`)
  })

  it("the home page lists the sign-in options", async () => {
    const home = await (await new Person(origin).visit("/")).text()
    const options = [...home.matchAll(/<li><strong>([^<]*)<\/strong>: ([^<]*)<\/li>/g)].map((m) => `${m[1]}: ${decodeEntities(m[2] ?? "")}`)
    expect(options).toEqual([
      `Credentials: ${DEMO_USER.email} / ${DEMO_PASSWORD}`,
      "Demo IdP: alice@example.test or bob@example.test, picked on the IdP's page (no password)",
      "Email: any address; the link arrives in the demo's mailbox",
      "Code by email: any address; type the 6-digit code from the demo's mailbox",
      "Passkey: register one with any email address, then sign in with it",
    ])
    expect(links(home)).toContain("/dev/mailbox")
  })

  it("Sign in with Email: the email form → check your email → the link on /dev/mailbox → opened on another device → signed in", async () => {
    const person = new Person(origin)
    const address = "carol@example.test"
    const errorsBefore = log.errors.length

    const { response: signInPage } = await person.follow(await person.visit("/protected"))
    const emailForm = formSaying(await signInPage.text(), "Sign in with Email")
    expect(emailForm.method).toBe("POST")
    expect(emailForm.action).toBe(`${origin}/auth/signin/nodemailer`)
    expect(emailForm.fields.csrfToken).toMatch(/^[0-9a-f]{64}$/)
    expect(emailForm.fields.callbackUrl).toBe(`${origin}/protected`)
    expect(emailForm.inputs.filter((i) => i.type !== "hidden").map((i) => `${i.name}:${i.type}`)).toEqual(["email:email"])

    const sent = await person.visit(emailForm.action, { ...emailForm.fields, email: address })
    expect(sent.status).toBe(303)
    expect(sent.headers.get("location")).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`)
    const { response: checkEmail } = await person.follow(sent)
    expect(await checkEmail.text()).toContain("Check your email")
    expect(person.jar.get("authjs.session-token")).toBeUndefined()

    // the home page links the mailbox; the newest message there is ours, its link clickable
    expect(links(await (await person.visit("/")).text())).toContain("/dev/mailbox")
    const mailboxPage = await person.visit("/dev/mailbox")
    expect(mailboxPage.status).toBe(200)
    expect(mailboxPage.headers.get("cache-control")).toBe("no-store")
    const mailboxHtml = await mailboxPage.text()
    expect(mailboxHtml).toContain("only in development")
    const [newest] = mailboxItems(mailboxHtml)
    const host = new URL(origin).host
    expect(newest?.text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC to /)
    expect(newest?.text).toContain(` UTC to ${address} : Sign in to ${host} `)
    expect(newest?.links).toHaveLength(1)
    const link = new URL(newest?.links[0] ?? "")
    expect(`${link.origin}${link.pathname}`).toBe(`${origin}/auth/callback/nodemailer`)
    expect(link.searchParams.get("email")).toBe(address)
    expect(link.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/)
    expect(newest?.text).toContain(link.href)
    // and printed on the console
    expect(printed).toEqual(expect.arrayContaining([`[mailbox] to ${address}: "Sign in to ${host}"`, `[mailbox]   ${link.href}`]))

    // another device (a fresh browser) opens the link: signed in there, back where the sign-in started
    const phone = new Person(origin)
    const opened = await phone.visit(link.href)
    expect(opened.status).toBe(302)
    expect(opened.headers.get("location")).toBe(`${origin}/protected`)
    const { response: protectedPage } = await phone.follow(opened)
    expect(protectedPage.status).toBe(200)
    const protectedHtml = await protectedPage.text()
    expect(protectedHtml).toContain(`Signed in as <strong>${address}</strong>`)
    expect(sessionShown(protectedHtml).user).toMatchObject({ email: address })
    expect(person.jar.get("authjs.session-token")).toBeUndefined()

    // a link works once
    const reused = await new Person(origin).visit(link.href)
    expect(reused.headers.get("location")).toBe(`${origin}/auth/error?error=Verification`)
    expect(log.errors.slice(errorsBefore).map((e) => (e as { type?: string }).type)).toEqual(["Verification"])
  })

  it("Sign in with Code by email: the email form → the code on /dev/mailbox and the console → typed on the code page → signed in", async () => {
    const person = new Person(origin)
    const address = "dave@example.test"
    const { response: signInPage } = await person.follow(await person.visit("/protected"))
    const codeForm = formSaying(await signInPage.text(), "Sign in with Code by email")
    expect(codeForm.action).toBe(`${origin}/auth/signin/email-code`)
    const sent = await person.visit(codeForm.action, { ...codeForm.fields, email: address })
    expect(sent.status).toBe(200)
    const codePage = formSaying(await sent.text(), "Sign in")
    expect(codePage.inputs.filter((i) => i.type !== "hidden").map((i) => i.name)).toEqual(["code"])

    const [newest] = mailboxItems(await (await person.visit("/dev/mailbox")).text())
    const host = new URL(origin).host
    expect(newest?.text).toContain(` UTC to ${address} : Your sign-in code for ${host} code `)
    const code = /code (\d{6})$/.exec(newest?.text ?? "")?.[1] ?? ""
    expect(code).toMatch(/^\d{6}$/)
    expect(printed).toEqual(
      expect.arrayContaining([`[mailbox] to ${address}: "Your sign-in code for ${host}"`, `[mailbox]   code ${code}`]),
    )

    const done = await person.visit(codePage.action, { ...codePage.fields, code })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(`${origin}/protected`)
    const { response: protectedPage } = await person.follow(done)
    expect(await protectedPage.text()).toContain(`Signed in as <strong>${address}</strong>`)
  })

  it("/dev/mailbox escapes what it shows and links only http(s) URLs", async () => {
    const mailer = createTransport({ host: "127.0.0.1", port: demo.mailbox.port, secure: false, ignoreTLS: true })
    await mailer.sendMail({
      from: "x@example.test",
      to: "eve@example.test",
      subject: '<img src=x onerror="alert(1)">',
      text: 'javascript:alert(1) then https://example.test/?a=1&b="><script>',
    })
    mailer.close()
    const html = await (await new Person(origin).visit("/dev/mailbox")).text()
    expect(html).not.toContain("<img")
    expect(html).not.toContain("<script")
    const [newest] = mailboxItems(html)
    expect(newest?.text).toContain('to eve@example.test : <img src=x onerror="alert(1)">')
    expect(newest?.links).toEqual(["https://example.test/?a=1&b="])
  })

  it("/dev/mailbox exists only in development: 404 and not linked with NODE_ENV=production", async () => {
    const quiet = captureLogger()
    const production = createDemoApp({
      env: { NODE_ENV: "production" },
      secret: "s".repeat(40),
      logger: quiet.logger,
      mailbox: demo.mailbox,
    })
    expect(production.signInOptions.map((o) => o.name)).toEqual(["Credentials", "Email", "Code by email"])
    await serving(production.app, async (at) => {
      const person = new Person(at)
      expect((await person.visit("/dev/mailbox")).status).toBe(404)
      expect(links(await (await person.visit("/")).text())).not.toContain("/dev/mailbox")
    })
    // without a mailbox there is neither email sign-in nor the page
    const without = createDemoApp({ env: {}, secret: "s".repeat(40), logger: quiet.logger })
    expect(without.signInOptions.map((o) => o.name)).toEqual(["Credentials"])
    await serving(without.app, async (at) => expect((await new Person(at).visit("/dev/mailbox")).status).toBe(404))
    expect(quiet.errors).toEqual([])
  })

  it("Sign in with Demo IdP: the IdP's login page → pick alice → protected page; next time pick bob", async () => {
    const person = new Person(origin)
    const idp = demo.idp.issuer

    /** From the protected page, through the IdP's account chooser, back to the protected page. */
    async function signInAs(email: string): Promise<string> {
      const guarded = await person.visit("/protected")
      const { response: signInPage } = await person.follow(guarded)
      const idpForm = formSaying(await signInPage.text(), "Sign in with Demo IdP")
      expect(idpForm.method).toBe("POST")
      expect(idpForm.action).toBe(`${origin}/auth/signin/demo-idp`)
      expect(idpForm.fields.csrfToken).toMatch(/^[0-9a-f]{64}$/)
      expect(idpForm.inputs.filter((i) => i.type !== "hidden")).toEqual([])

      const toIdp = await person.visit(idpForm.action, idpForm.fields)
      expect(toIdp.status).toBe(303)
      const authorize = new URL(toIdp.headers.get("location") ?? "")
      expect(authorize.origin).toBe(idp)
      expect(authorize.searchParams.get("client_id")).toBe(demo.idp.clientId)
      expect(authorize.searchParams.get("redirect_uri")).toBe(`${origin}/auth/callback/demo-idp`)
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")

      // the IdP shows its own page: one button per demo account, and Cancel
      const { response: loginPage, url: loginUrl } = await person.follow(toIdp)
      expect(new URL(loginUrl).origin).toBe(idp)
      expect(new URL(loginUrl).pathname).toMatch(/^\/interaction\/[\w-]+$/)
      expect(loginPage.status).toBe(200)
      const loginHtml = await loginPage.text()
      expect(loginHtml).toContain("<h1>Sign in to Demo IdP</h1>")
      expect(forms(loginHtml).map((f) => f.text)).toEqual([
        "Continue as Alice Example alice@example.test",
        "Continue as Bob Example bob@example.test",
        "Cancel",
      ])
      expect(forms(loginHtml).flatMap((f) => f.inputs.filter((i) => i.type !== "hidden"))).toEqual([])
      // each origin has its own cookies
      expect([...person.jarOf(idp).cookies.keys()]).toContain("_interaction")
      expect([...person.jar.cookies.keys()].filter((name) => name.startsWith("_"))).toEqual([])

      const choice = formSaying(loginHtml, email)
      expect(choice.method).toBe("POST")
      const chosen = await person.visit(new URL(choice.action, loginUrl).href, choice.fields)
      expect(chosen.status).toBe(303)
      const { response: protectedPage, hops } = await person.follow(chosen)
      // the IdP resumes the authorization, answers at the demo's callback, which sends us where we were going
      expect(hops.length).toBe(3)
      expect(new URL(hops[0] ?? "").origin).toBe(idp)
      const callback = new URL(hops[1] ?? "")
      expect(`${callback.origin}${callback.pathname}`).toBe(`${origin}/auth/callback/demo-idp`)
      expect(callback.searchParams.get("code")).toBeTruthy()
      expect(callback.searchParams.get("iss")).toBe(idp)
      expect(hops[2]).toBe(`${origin}/protected`)
      expect(protectedPage.status).toBe(200)
      expect(person.jar.get("authchart.flow.demo-idp")).toBeUndefined()
      return protectedPage.text()
    }

    const asAlice = await signInAs("alice@example.test")
    expect(asAlice).toContain("Signed in as <strong>alice@example.test</strong>")
    expect(sessionShown(asAlice).user).toEqual({ name: "Alice Example", email: "alice@example.test" })
    expect(person.jar.get("authjs.session-token")).toBeTruthy()

    // sign out of the demo: the IdP keeps no session of its own, so the next sign-in asks again
    const [signOutForm] = forms(await (await person.visit("/auth/signout")).text())
    await person.visit(signOutForm?.action ?? "", signOutForm?.fields)
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    const asBob = await signInAs("bob@example.test")
    expect(sessionShown(asBob).user).toEqual({ name: "Bob Example", email: "bob@example.test" })
    expect(DEMO_IDP_ACCOUNTS.map((a) => a.email)).toEqual(["alice@example.test", "bob@example.test"])
  })

  it("Sign out of Demo IdP too: the sign-out page offers it, the IdP asks, signs out there, and sends the person back", async () => {
    const person = new Person(origin)
    const idp = demo.idp.issuer
    const errorsBefore = log.errors.length
    const { response: signInPage } = await person.follow(await person.visit("/protected"))
    const idpForm = formSaying(await signInPage.text(), "Sign in with Demo IdP")
    const { response: loginPage, url: loginUrl } = await person.follow(await person.visit(idpForm.action, idpForm.fields))
    const alice = formSaying(await loginPage.text(), "alice@example.test")
    await person.follow(await person.visit(new URL(alice.action, loginUrl).href, alice.fields))
    expect(person.jar.get("authjs.session-token")).toBeTruthy()

    // the demo's sign-out page: "Sign out" (here only) and "Sign out of Demo IdP too" in one form
    const [signOut] = forms(await (await person.visit("/auth/signout")).text())
    expect(signOut?.text).toBe("Sign out Sign out of Demo IdP too")
    const toIdp = await person.visit(signOut?.action ?? "", { ...signOut?.fields, provider: "demo-idp" })
    expect(toIdp.status).toBe(303)
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    const endSession = new URL(toIdp.headers.get("location") ?? "")
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${idp}/session/end`)
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${origin}/auth/signout-callback`)

    // the IdP asks; "Yes" ends its session, tells the demo (back-channel) and sends the person back
    const { response: ask, url: askUrl } = await person.follow(toIdp)
    const askHtml = await ask.text()
    expect(visibleText(askHtml)).toContain("Sign out of the Demo IdP too?")
    const logoutForm = forms(askHtml).find((f) => f.fields.xsrf !== undefined)
    const done = await person.visit(new URL(logoutForm?.action ?? "", askUrl).href, { ...logoutForm?.fields, logout: "yes" })
    const { hops } = await person.follow(done)
    expect(hops[0]).toMatch(new RegExp(`^${origin}/auth/signout-callback\\?state=`))
    expect(new URL(hops[1] ?? "").origin).toBe(origin)
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.slice(errorsBefore)).toEqual([])
  })

  it("the IdP's page: an unknown account is refused, Cancel goes back to the demo's sign-in page", async () => {
    const person = new Person(origin)
    const errorsBefore = log.errors.length
    const { response: signInPage } = await person.follow(await person.visit("/protected"))
    const idpForm = formSaying(await signInPage.text(), "Sign in with Demo IdP")
    const { response: loginPage, url: loginUrl } = await person.follow(await person.visit(idpForm.action, idpForm.fields))
    const loginHtml = await loginPage.text()

    const unknown = await person.visit(loginUrl, { account: "mallory<script>" })
    expect(unknown.status).toBe(400)
    const unknownHtml = await unknown.text()
    expect(unknownHtml).toContain("Pick one of the demo accounts.")
    expect(unknownHtml).not.toContain("<script>")

    const cancel = formSaying(loginHtml, "Cancel")
    const { response: back, url } = await person.follow(await person.visit(new URL(cancel.action, loginUrl).href, cancel.fields))
    expect(url).toBe(`${origin}/auth/signin?error=OAuthCallbackError`)
    expect(await back.text()).toContain("The provider did not complete the sign-in: it was cancelled or refused there.")
    expect(person.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.slice(errorsBefore).map((e) => (e as { type?: string }).type)).toEqual(["OAuthCallbackError"])

    // the interaction is over: its page says so instead of failing
    const stale = await person.visit(loginUrl)
    expect(stale.status).toBe(400)
    expect(await stale.text()).toContain("This sign-in expired or was already used.")
  })

  it("lists a real provider configured through AUTH_<ID>_* in the env it is given, contacting no one", async () => {
    const quiet = captureLogger()
    const env = { AUTH_GITHUB_ID: "gh-client-id", AUTH_GITHUB_SECRET: "gh-client-secret", AUTH_OKTA_ID: "okta-client-id" }
    const { app, config, signInOptions, skipped } = createDemoApp({ env, secret: "s".repeat(40), logger: quiet.logger })
    expect(signInOptions.map((o) => o.name)).toEqual(["Credentials", "GitHub"])
    expect(skipped).toEqual(["okta: AUTH_OKTA_ID is set but AUTH_OKTA_ISSUER is not"])
    expect(config.providers[1]).toMatchObject({ id: "github", clientId: "gh-client-id", clientSecret: "gh-client-secret" })
    // process.env is not read when an env is given
    expect(createDemoApp({ env: {} }).signInOptions.map((o) => o.id)).toEqual(["credentials"])

    const hosts: string[] = []
    const guarded = globalThis.fetch
    globalThis.fetch = (input, init) => {
      hosts.push(new URL(typeof input === "string" || input instanceof URL ? input : input.url).host)
      return guarded(input, init)
    }
    const server = app.listen(0, "127.0.0.1")
    try {
      await once(server, "listening")
      const person = new Person(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      const signIn = await person.visit("/auth/signin")
      expect(signIn.status).toBe(200)
      const html = await signIn.text()
      const github = formSaying(html, "Sign in with GitHub")
      expect(github.method).toBe("POST")
      expect(github.action).toBe(`${person.origin}/auth/signin/github`)
      expect(github.fields.csrfToken).toMatch(/^[0-9a-f]{64}$/)
      expect(html).not.toContain("Demo IdP")
      expect(html).not.toContain("Okta")
      expect(await (await person.visit("/")).text()).toContain("<li><strong>GitHub</strong>: a real account (AUTH_GITHUB_ID)</li>")
    } finally {
      globalThis.fetch = guarded
      server.closeAllConnections()
      server.close()
    }
    expect(new Set(hosts)).toEqual(new Set([hosts[0]]))
    expect(hosts[0]).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(quiet.errors).toEqual([])
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
      // an env given replaces process.env
      expect(createDemoApp({ env: { AUTH_SECRET: "f".repeat(40) } }).config.secret).toBe("f".repeat(40))
      expect(createDemoApp({ env: {} }).secretGenerated).toBe(true)
    } finally {
      if (saved === undefined) delete process.env.AUTH_SECRET
      else process.env.AUTH_SECRET = saved
    }
  })
})
