import { describe, expect, it } from "vitest"
import {
  attr,
  cssColor,
  escapeHtml,
  html,
  imageUrl,
  layout,
  renderError,
  renderSignIn,
  renderSignOut,
  renderVerifyRequest,
  type PageProvider,
  type SignInPageProps,
} from "../src/runtime/http/pages/index.js"
import { contentSecurityPolicy, keptOrigins, originOf, pageNonce } from "../src/runtime/http/pages/csp.js"
import { keptCardTemplates, renderStepCard } from "../src/runtime/http/pages/step.js"

const XSS = `x"><img src=x onerror=alert(1)><script>alert(1)</script>'`
const ESCAPED = "x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"
const BAD_COLOR = "red;}</style><script>alert(1)</script>"
const NONCE = "bm9uY2Utb2YtdGhlLXRlc3Q="

const origin = "https://app.example/auth"
const provider = (id: string, type: PageProvider["type"], extra: Partial<PageProvider> = {}): PageProvider => ({
  id,
  name: id[0]!.toUpperCase() + id.slice(1),
  type,
  signinUrl: `${origin}/signin/${id}`,
  callbackUrl: `${origin}/callback/${id}`,
  ...extra,
})

const providers: PageProvider[] = [
  provider("github", "oauth", { style: { bg: "#24292f", text: "#fff" } }),
  provider("google", "oidc", { style: { logo: "https://cdn.example/google.svg", brandColor: "rgb(66, 133, 244)" } }),
  provider("email", "email"),
  provider("credentials", "credentials", {
    credentials: {
      username: { label: "Username", placeholder: "jsmith", required: true, autocomplete: "username" },
      password: { label: "Password", type: "password", minlength: 8, maxLength: "64" },
      pin: { type: "javascript", pattern: "\\d{4}", onfocus: "alert(1)", autofocus: true, style: "x" },
    },
  }),
  provider("passkey", "webauthn"),
]

const base: SignInPageProps = {
  providers,
  csrfToken: "csrf-123",
  callbackUrl: "https://app.example/dashboard",
  theme: {},
  nonce: NONCE,
}

const tags = (page: string, name: string): string[] => page.match(new RegExp(`<${name}\\b[^>]*>`, "g")) ?? []

describe("html helpers", () => {
  it("escapes & < > \" '", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;")
  })

  it("escapes interpolations but not nested html, and drops null/undefined/booleans", () => {
    const inner = html`<b>${"<i>"}</b>`
    expect(html`<p>${inner}${[inner, "&"]}${null}${undefined}${false}${true}${3}</p>`.toString()).toBe(
      "<p><b>&lt;i&gt;</b><b>&lt;i&gt;</b>&amp;3</p>",
    )
  })

  it("attr renders escaped values and boolean attributes", () => {
    expect(html`<input${attr("value", XSS)}${attr("required", true)}${attr("x", false)}${attr("y", undefined)}>`.toString()).toBe(
      `<input value="${ESCAPED}" required>`,
    )
  })

  it.each([
    ["#fff", "#fff"],
    ["#346DF1", "#346DF1"],
    ["#34 6df1", undefined],
    ["rgb(66, 133, 244)", "rgb(66, 133, 244)"],
    ["hsl(220 90% 56% / .5)", "hsl(220 90% 56% / .5)"],
    ["rebeccapurple", "rebeccapurple"],
    [BAD_COLOR, undefined],
    ["red;background:url(x)", undefined],
    ["rgb(1,2,3));}", undefined],
    ["url(javascript:alert(1))", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("cssColor(%j) → %j", (input, expected) => {
    expect(cssColor(input)).toBe(expected)
  })

  it.each([
    ["https://cdn.example/logo.png", true],
    ["http://localhost/logo.png", true],
    ["/logo.svg", true],
    ["//evil.example/logo.png", false],
    ["/\\evil.example/logo.png", false],
    ["javascript:alert(1)", false],
    ["data:image/svg+xml,<svg onload=alert(1)>", false],
    ["logo.png", false],
  ])("imageUrl(%j) accepted: %s", (input, ok) => {
    expect(imageUrl(input)).toBe(ok ? input : undefined)
  })
})

describe("layout", () => {
  it("emits the Auth.js document shape", () => {
    const page = layout({ title: "T<", theme: {}, nonce: NONCE, body: html`<p>hi</p>`, head: html`<meta name="x">` })
    expect(page).toMatch(
      /^<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style nonce="bm9uY2Utb2YtdGhlLXRlc3Q=">[^<]*<\/style><title>T&lt;<\/title><meta name="x"><\/head><body class="__next-auth-theme-auto"><div class="page"><p>hi<\/p><\/div><\/body><\/html>$/,
    )
  })

  it.each([
    ["dark", "dark"],
    ["light", "light"],
    ["auto", "auto"],
    [undefined, "auto"],
    [`x"><script>`, "auto"],
  ] as const)("colorScheme %j → body class %s", (scheme, cls) => {
    const page = layout({ title: "t", theme: { colorScheme: scheme as "dark" }, nonce: NONCE, body: html`` })
    expect(page).toContain(`<body class="__next-auth-theme-${cls}">`)
  })

  it("applies valid theme colours and logo", () => {
    const page = layout({
      title: "t",
      nonce: NONCE,
      theme: { brandColor: "#ff0000", buttonText: "white", logo: "/brand.png" },
      body: html``,
    })
    expect(page).toContain(":root{--brand-color:#ff0000;--button-text-color:white;}")
    expect(page).toContain('<img class="logo" src="/brand.png" alt="Logo">')
  })

  it("drops invalid theme colours and logos", () => {
    const page = layout({
      title: "t",
      nonce: NONCE,
      theme: { brandColor: BAD_COLOR, buttonText: BAD_COLOR, logo: "javascript:alert(1)" },
      body: html``,
    })
    expect(page).not.toContain("red;")
    expect(page).not.toContain("<script")
    expect(page).not.toContain("<img")
    expect(page.match(/<\/style>/g)).toHaveLength(1)
  })
})

describe("renderSignIn", () => {
  const page = renderSignIn(base)

  it("has title and no error box without an error", () => {
    expect(page).toContain("<title>Sign In</title>")
    expect(page).not.toContain('class="error"')
  })

  it("posts OAuth/OIDC and email to signinUrl and credentials to the provider callbackUrl", () => {
    expect(tags(page, "form")).toEqual([
      `<form action="${origin}/signin/github" method="POST">`,
      `<form action="${origin}/signin/google" method="POST">`,
      `<form action="${origin}/signin/email" method="POST">`,
      `<form action="${origin}/callback/credentials" method="POST">`,
    ])
  })

  it("puts hidden csrfToken and callbackUrl in every form", () => {
    const forms = page.split("<form").slice(1)
    for (const form of forms) {
      expect(form).toContain('<input type="hidden" name="csrfToken" value="csrf-123">')
      expect(form).toContain('<input type="hidden" name="callbackUrl" value="https://app.example/dashboard">')
    }
  })

  it("labels buttons and styles OAuth buttons from validated provider colours", () => {
    for (const name of ["Github", "Google", "Email", "Credentials"]) expect(page).toContain(`Sign in with ${name}`)
    expect(page).toContain(".provider-button-0{--provider-brand-color:#24292f;--provider-text-color:#fff;}")
    expect(page).toContain(".provider-button-1{--provider-brand-color:rgb(66, 133, 244);}")
    expect(page).toContain('<button type="submit" class="button provider-button-0">')
    expect(page).not.toContain("style=")
    expect(page).toContain('src="https://cdn.example/google.svg"')
    expect(tags(page, "img")).toHaveLength(1)
  })

  it("renders the email input", () => {
    const withEmail = renderSignIn({ ...base, email: "a@b.example" })
    expect(tags(withEmail, "input").find((t) => t.includes('name="email"'))).toBe(
      '<input id="input-email-for-email-provider" autofocus type="email" name="email" value="a@b.example" placeholder="email@example.com" required>',
    )
    expect(withEmail).toContain('<label class="section-header" for="input-email-for-email-provider">Email</label>')
  })

  it("renders credential inputs with allowed attributes only", () => {
    const inputs = tags(page, "input").filter((t) => t.includes("-for-credentials-provider"))
    expect(inputs).toEqual([
      '<input name="username" id="input-username-for-credentials-provider" type="text" placeholder="jsmith" autocomplete="username" required>',
      '<input name="password" id="input-password-for-credentials-provider" type="password" minlength="8" maxlength="64">',
      '<input name="pin" id="input-pin-for-credentials-provider" type="text" pattern="\\d{4}">',
    ])
    expect(page).toContain('<label class="section-header" for="input-username-for-credentials-provider">Username</label>')
    expect(page).toContain('<label class="section-header" for="input-pin-for-credentials-provider">pin</label>')
    expect(page).not.toContain("onfocus")
  })

  it("skips webauthn and separates groups with <hr>", () => {
    expect(page).not.toContain("passkey")
    // [github google] <hr> [email] <hr> [credentials]
    expect(page.match(/<hr>/g)).toHaveLength(2)
    const only = renderSignIn({ ...base, providers: [providers[0]!, providers[1]!] })
    expect(only).not.toContain("<hr>")
    const mixed = renderSignIn({ ...base, providers: [providers[2]!, providers[0]!, providers[4]!, providers[1]!] })
    expect(mixed.match(/<hr>/g)).toHaveLength(1)
  })

  it("omits the callbackUrl field when empty", () => {
    expect(renderSignIn({ ...base, callbackUrl: "" })).not.toContain('name="callbackUrl"')
  })

  it.each([
    ["OAuthSignin", "The sign-in with this provider could not be started. Try again later, or choose another way to sign in."],
    [
      "OAuthCallbackError",
      "The provider did not complete the sign-in: it was cancelled or refused there. Try again, or choose another way to sign in.",
    ],
    ["OAuthCreateAccount", "Try signing in with a different account."],
    ["EmailCreateAccount", "Try signing in with a different account."],
    ["Callback", "Try signing in with a different account."],
    ["OAuthAccountNotLinked", "To confirm your identity, sign in with the same account you used originally."],
    ["EmailSignin", "The e-mail could not be sent."],
    ["EmailSignInError", "Check the e-mail address and try again."],
    ["CredentialsSignin", "Sign in failed. Check the details you provided are correct."],
    ["SessionRequired", "Please sign in to access this page."],
    ["MissingCSRF", "The form expired. Please try again."],
    ["AccessDenied", "You do not have permission to sign in."],
    ["Nope", "Unable to sign in."],
    ["toString", "Unable to sign in."],
    ["__proto__", "Unable to sign in."],
  ])("error %s → %s", (error, message) => {
    expect(renderSignIn({ ...base, error })).toContain(`<div class="error" role="alert"><p>${message}</p></div>`)
  })

  it("escapes every string prop", () => {
    const evil = renderSignIn({
      nonce: NONCE,
      csrfToken: XSS,
      callbackUrl: XSS,
      email: XSS,
      error: XSS,
      theme: { brandColor: BAD_COLOR, buttonText: BAD_COLOR, logo: XSS },
      providers: [
        provider("o", "oauth", { name: XSS, signinUrl: XSS, style: { logo: XSS, bg: BAD_COLOR, text: BAD_COLOR } }),
        provider("e", "email", { name: XSS }),
        provider("c", "credentials", {
          id: XSS,
          name: XSS,
          callbackUrl: XSS,
          credentials: { [XSS]: { label: XSS, placeholder: XSS, value: XSS, autocomplete: XSS, pattern: XSS, type: XSS } },
        }),
      ],
    })
    expect(evil).not.toContain("<script")
    expect(evil).not.toContain("<img")
    expect(evil).not.toContain('"><img')
    expect(evil).not.toContain(XSS)
    expect(evil).not.toContain("red;")
    expect(evil).toContain(`<button type="submit" class="button provider-button-0"><span>`)
    expect(evil).toContain(`<form action="${ESCAPED}" method="POST">`)
    expect(evil).toContain(`<input type="hidden" name="callbackUrl" value="${ESCAPED}">`)
    expect(evil).toContain(`name="email" value="${ESCAPED}"`)
    expect(evil).toContain(`<span>Sign in with ${ESCAPED}</span>`)
    expect(evil).toContain(`>${ESCAPED}</label>`)
    expect(evil).toContain(`placeholder="${ESCAPED}"`)
    expect(evil).toContain('type="text"')
    expect(evil).toContain("<p>Unable to sign in.</p>")
  })
})

describe("renderSignOut", () => {
  it("renders the confirmation form", () => {
    const page = renderSignOut({ csrfToken: "c1", action: `${origin}/signout`, theme: {}, nonce: NONCE })
    expect(page).toContain("<title>Sign Out</title>")
    expect(page).toContain("<h1>Sign out</h1><p>Are you sure you want to sign out?</p>")
    expect(tags(page, "form")).toEqual([`<form action="${origin}/signout" method="POST">`])
    expect(page).toContain('<input type="hidden" name="csrfToken" value="c1">')
    expect(page).toContain('<button id="submitButton" type="submit">Sign out</button>')
  })

  it("escapes", () => {
    const page = renderSignOut({ csrfToken: XSS, action: XSS, theme: {}, nonce: NONCE })
    expect(page).not.toContain("<script")
    expect(page).toContain(`action="${ESCAPED}"`)
    expect(page).toContain(`value="${ESCAPED}"`)
  })
})

describe("renderVerifyRequest", () => {
  it("renders the check-your-email page", () => {
    const page = renderVerifyRequest({ homeUrl: "https://app.example", host: "app.example", theme: {}, nonce: NONCE })
    expect(page).toContain("<title>Verify Request</title>")
    expect(page).toContain("<h1>Check your email</h1><p>A sign in link has been sent to your email address.</p>")
    expect(page).toContain('<a class="site" href="https://app.example">app.example</a>')
  })

  it("escapes", () => {
    const page = renderVerifyRequest({ homeUrl: XSS, host: XSS, theme: {}, nonce: NONCE })
    expect(page).not.toContain("<script")
    expect(page).toContain(`<a class="site" href="${ESCAPED}">${ESCAPED}</a>`)
  })
})

describe("renderError", () => {
  const urls = { homeUrl: "https://app.example", signInUrl: `${origin}/signin`, theme: {}, nonce: NONCE }
  const signInLink = `<a class="button" href="${origin}/signin">Sign in</a>`

  it.each([
    [
      "Configuration",
      500,
      "Server error",
      ["There is a problem with the server configuration.", "Check the server logs for more information."],
      false,
    ],
    ["AccessDenied", 403, "Access Denied", ["You do not have permission to sign in."], true],
    [
      "Verification",
      403,
      "Unable to sign in",
      ["The sign in link is no longer valid.", "It may have been used already or it may have expired."],
      true,
    ],
  ])("%s → %i %s", (error, status, heading, lines, hasSignIn) => {
    const page = renderError({ error, ...urls })
    expect(page.status).toBe(status)
    expect(page.html).toContain("<title>Error</title>")
    expect(page.html).toContain(`<h1>${heading}</h1>`)
    for (const line of lines) expect(page.html).toContain(`<p>${line}</p>`)
    expect(page.html.includes(signInLink)).toBe(hasSignIn)
  })

  it.each([undefined, "Default", "OAuthSignin", "constructor", XSS])("%j → 200 with a link home", (error) => {
    const page = renderError({ error, ...urls })
    expect(page.status).toBe(200)
    expect(page.html).toContain("<h1>Error</h1>")
    expect(page.html).toContain('<a class="site" href="https://app.example">app.example</a>')
    expect(page.html).not.toContain("<script")
  })

  it("escapes the links", () => {
    const page = renderError({ error: "AccessDenied", homeUrl: XSS, signInUrl: XSS, theme: {}, nonce: NONCE })
    expect(page.html).toContain(`<a class="button" href="${ESCAPED}">Sign in</a>`)
    expect(renderError({ homeUrl: XSS, signInUrl: XSS, theme: {}, nonce: NONCE }).html).toContain(
      `<a class="site" href="${ESCAPED}">${ESCAPED}</a>`,
    )
  })
})

describe("contentSecurityPolicy", () => {
  it("allows nothing but the page's nonce, its form targets, its images and fetches", () => {
    expect(
      contentSecurityPolicy({
        nonce: NONCE,
        formAction: ["https://app.example", "https://idp.example"],
        images: ["https://cdn.example"],
        connect: ["https://app.example"],
      }),
    ).toBe(
      `default-src 'none'; script-src 'nonce-${NONCE}'; style-src 'nonce-${NONCE}'; img-src 'self' https://cdn.example; connect-src https://app.example; form-action 'self' https://app.example https://idp.example; frame-ancestors 'none'; base-uri 'none'`,
    )
  })

  it("a page without forms allows none; style attributes only when asked (the inspector)", () => {
    const policy = contentSecurityPolicy({ nonce: NONCE, styleAttributes: true })
    expect(policy).toContain("form-action 'none'")
    expect(policy).not.toContain("connect-src")
    expect(policy).toContain(`style-src-elem 'nonce-${NONCE}'; style-src-attr 'unsafe-inline'`)
  })

  it("names each source once, in order, for any lists (as the policy written with arrays and a Set)", () => {
    const unique = (list: readonly string[]) => [...new Set(list)].join(" ")
    const reference = (p: Parameters<typeof contentSecurityPolicy>[0]) => {
      const nonce = `'nonce-${p.nonce}'`
      return [
        "default-src 'none'",
        `script-src ${nonce}`,
        ...(p.styleAttributes
          ? [`style-src ${nonce}`, `style-src-elem ${nonce}`, "style-src-attr 'unsafe-inline'"]
          : [`style-src ${nonce}`]),
        `img-src ${unique(["'self'", ...(p.images ?? [])])}`,
        ...(p.connect ? [`connect-src ${unique(p.connect)}`] : []),
        `form-action ${p.formAction ? unique(["'self'", ...p.formAction]) : "'none'"}`,
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join("; ")
    }
    const lists = [
      undefined,
      [],
      [""],
      ["https://a.example"],
      ["https://a.example", "https://a.example"],
      ["'self'"],
      ["https://a.example", "'self'", "https://b.example", "https://a.example"],
      ["", "https://a.example", ""],
    ]
    for (const formAction of lists) {
      for (const images of lists) {
        for (const connect of lists) {
          for (const styleAttributes of [true, false]) {
            const policy = { nonce: NONCE, formAction, images, connect, styleAttributes }
            expect(contentSecurityPolicy(policy)).toBe(reference(policy))
          }
        }
      }
    }
  })

  it.each([
    ["https://app.example/dashboard?x=1", "https://app.example"],
    ["http://127.0.0.1:3000/home", "http://127.0.0.1:3000"],
    ["HTTPS://App.Example:443/", "https://app.example"],
    ["javascript:alert(1)", undefined],
    ["data:text/html,<p>", undefined],
    ["ftp://files.example/x", undefined],
    ["/relative", undefined],
    ["not a url", undefined],
    ["", undefined],
  ])("originOf(%j) is %j, the first time and every time after (kept)", (url, origin) => {
    for (let i = 0; i < 3; i++) expect(originOf(url)).toBe(origin)
  })

  it("originOf resolves against a base, and keeps a bounded number of URLs", () => {
    expect(originOf("/path", "https://app.example")).toBe("https://app.example")
    expect(originOf(new URL("https://x.example/a"))).toBe("https://x.example")
    expect(originOf(undefined)).toBeUndefined()
    for (let i = 0; i < 1000; i++) {
      expect(originOf(`https://u${i}.example/`)).toBe(`https://u${i}.example`)
      expect(keptOrigins()).toBeLessThanOrEqual(256)
    }
    // a long URL is answered, not kept
    const before = keptOrigins()
    expect(originOf(`https://long.example/${"x".repeat(5000)}`)).toBe("https://long.example")
    expect(keptOrigins()).toBe(before)
  })

  it("pageNonce: 128 random bits, fresh each time", () => {
    const nonces = new Set(Array.from({ length: 50 }, pageNonce))
    expect(nonces.size).toBe(50)
    for (const nonce of nonces) {
      expect(Buffer.from(nonce, "base64")).toHaveLength(16)
    }
    expect(pageNonce()).toMatch(/^[A-Za-z0-9+/]{22}==$/)
  })
})

describe("field labels on a page with several email fields", () => {
  const withEmail = (label: string) => ({ email: { label, type: "email" }, password: { label: "Password", type: "password" } })
  const passkey = provider("passkey", "webauthn", {
    webauthn: { optionsUrl: `${origin}/webauthn-options/passkey`, formFields: { email: { label: "Email" } }, conditionalUI: false },
  })
  const labels = (page: string) => [...page.matchAll(/<label[^>]*>([^<]*)<\/label>/g)].map((m) => m[1])

  it("credentials, email and passkeys: each says its method", () => {
    const page = renderSignIn({
      ...base,
      providers: [provider("credentials", "credentials", { credentials: withEmail("Email") }), provider("email", "email"), passkey],
    })
    expect(labels(page)).toEqual(["Email for password sign-in", "Password", "Email for a sign-in link", "Email for your passkey"])
  })

  it("a label no other form uses stays as configured", () => {
    expect(labels(renderSignIn({ ...base, providers: [provider("email", "email")] }))).toEqual(["Email"])
    const page = renderSignIn({
      ...base,
      providers: [provider("credentials", "credentials", { credentials: withEmail("Work email") }), passkey],
    })
    expect(labels(page)).toEqual(["Work email", "Password", "Email"])
  })
})

describe("renderStepCard", () => {
  const props = {
    title: "Code",
    fields: '<input name="code">',
    submitLabel: "Verify",
    action: `${origin}/callback/credentials`,
    step: "totp",
    csrfToken: "c1",
    attempt: 0,
    maxAttempts: 5,
    cancelUrl: `${origin}/signin`,
    theme: {},
    nonce: NONCE,
  }

  it("says how many attempts are left after a wrong answer only", () => {
    expect(renderStepCard(props)).not.toContain("left.")
    expect(renderStepCard({ ...props, attempt: 1 })).toContain(">4 attempts left.</p>")
    expect(renderStepCard({ ...props, attempt: 4 })).toContain(">1 attempt left.</p>")
  })

  it("escapes everything but the app's own fields", () => {
    const page = renderStepCard({
      ...props,
      title: XSS,
      message: XSS,
      action: XSS,
      step: XSS,
      csrfToken: XSS,
      cancelUrl: XSS,
      submitLabel: XSS,
    })
    expect(page).not.toContain("<script")
    expect(page).toContain(`<h1>${ESCAPED}</h1>`)
    expect(page).toContain(`<div class="error" role="alert"><p>${ESCAPED}</p></div>`)
    expect(page).toContain(`action="${ESCAPED}"`)
    expect(page).toContain(`<a href="${ESCAPED}">Cancel and start over</a>`)
    expect(page).toContain(`<input type="hidden" name="step" value="${ESCAPED}">`)
    expect(page).toContain(`<input type="hidden" name="csrfToken" value="${ESCAPED}">`)
    expect(page).toContain(`<button id="submitButton" type="submit">${ESCAPED}</button>`)
    expect(page).toContain(`<title>${ESCAPED}</title>`)
    expect(page).toContain('<input name="code">')
  })

  it("escapes what varies per response on every render, not only the first (the card's fixed part is made once)", () => {
    const first = renderStepCard(props)
    const again = renderStepCard({ ...props, message: XSS, action: XSS, csrfToken: XSS, cancelUrl: XSS, nonce: XSS, attempt: 2 })
    expect(first).toContain(`<style nonce="${NONCE}">`)
    expect(again).not.toContain("<script")
    expect(again).toContain(`<style nonce="${ESCAPED}">`)
    expect(again).toContain(
      `<div class="error" role="alert"><p>${ESCAPED}</p></div><p class="hint" data-attempts-left="3">3 attempts left.</p>`,
    )
    expect(again).toContain(`<form method="POST" action="${ESCAPED}"><input type="hidden" name="step" value="totp">`)
    expect(again).toContain(`<input type="hidden" name="csrfToken" value="${ESCAPED}"><input name="code">`)
    expect(again).toContain(`<a href="${ESCAPED}">Cancel and start over</a>`)
  })

  it("the same fields under another title, button, step or theme are drawn with those (a theme by its values)", () => {
    const theme: { colorScheme?: "light" | "dark"; brandColor?: string; logo?: string; buttonText?: string } = {}
    const base = { ...props, theme }
    // each variant right after the card it differs from in that one input alone
    const variant = (change: Partial<typeof props>, expected: string) => {
      expect(renderStepCard(base)).not.toContain(expected)
      expect(renderStepCard({ ...base, ...change })).toContain(expected)
    }
    variant({ title: "Other" }, "<title>Other</title>")
    variant({ title: "Other" }, "<h1>Other</h1>")
    variant({ step: "terms" }, 'name="step" value="terms"')
    variant({ submitLabel: "Send" }, ">Send</button>")
    variant({ theme: { colorScheme: "dark" } }, '<body class="__next-auth-theme-dark">')
    variant({ theme: { logo: "/logo.png" } }, '<img class="logo" src="/logo.png" alt="Logo">')
    variant({ theme: { brandColor: "#222222" } }, "--brand-color:#222222;")
    variant({ theme: { buttonText: "#333333" } }, "--button-text-color:#333333;")
    // the same theme object, changed in between
    renderStepCard(base)
    theme.colorScheme = "light"
    theme.brandColor = "#111111"
    const changed = renderStepCard(base)
    expect(changed).toContain('<body class="__next-auth-theme-light">')
    expect(changed).toContain("--brand-color:#111111;")
    expect(renderStepCard(props)).toBe(renderStepCard({ ...props, fields: html`<input name="code">` }))
  })

  it("draws pages whose fields vary per request, beyond what it keeps, each with its own fields", () => {
    for (let i = 0; i < 200; i++) {
      expect(renderStepCard({ ...props, fields: `<input name="code" value="${i}">` })).toContain(`<input name="code" value="${i}"><button`)
      expect(keptCardTemplates()).toBeLessThanOrEqual(64)
    }
  })
})
