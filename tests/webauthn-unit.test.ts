/**
 * WebAuthn without a browser: the provider presets, the configuration checks, the register/authenticate
 * decision, the machine driven by pure transitions, the sign-in page's passkey form and the served
 * script. The ceremonies themselves are in webauthn.test.ts (Chromium).
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, initialTransition, transition } from "xstate"
import type { AuthConfig } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { webauthnMachine } from "../src/machines/webauthn.js"
import { AWAITING_INPUT, type Identity } from "../src/machines/types.js"
import Passkey from "../src/providers/passkey.js"
import WebAuthn from "../src/providers/webauthn.js"
import { decideCeremony } from "../src/runtime/effects/webauthn.js"
import { renderSignIn } from "../src/runtime/pages/index.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

function configWith(extra: Partial<AuthConfig>) {
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    adapter: MemoryAdapter(),
    experimental: { enableWebAuthn: true },
    providers: [Passkey()],
    ...extra,
  }
  return { client: new AuthClient(config), log }
}

async function configError(extra: Partial<AuthConfig>): Promise<{ type?: string; message: string } | undefined> {
  const { client, log } = configWith(extra)
  const res = await client.send("/auth/session")
  expect(res.status).toBe(500)
  return log.errors[0] as { type?: string; message: string } | undefined
}

describe("WebAuthn and Passkey providers", () => {
  it("WebAuthn(): Auth.js' defaults", () => {
    expect(WebAuthn()).toEqual({
      id: "webauthn",
      name: "WebAuthn",
      type: "webauthn",
      enableConditionalUI: true,
      formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
      authenticationOptions: { timeout: 300_000 },
      registrationOptions: { timeout: 300_000 },
    })
  })

  it("Passkey(): id passkey, resident key and user verification required and checked", () => {
    const passkey = Passkey()
    expect(passkey).toMatchObject({
      id: "passkey",
      name: "Passkey",
      type: "webauthn",
      authenticationOptions: { timeout: 300_000, userVerification: "required" },
      registrationOptions: { timeout: 300_000, authenticatorSelection: { residentKey: "required", userVerification: "required" } },
      verifyAuthenticationOptions: { requireUserVerification: true },
      verifyRegistrationOptions: { requireUserVerification: true },
    })
  })

  it("options replace defaults field by field", () => {
    const p = Passkey({ id: "key", relayingParty: { id: "app.example" }, registrationOptions: { timeout: 1000 } })
    expect(p.id).toBe("key")
    expect(p.relayingParty).toEqual({ id: "app.example" })
    expect(p.registrationOptions).toMatchObject({ timeout: 1000, authenticatorSelection: { residentKey: "required" } })
  })
})

describe("configuration checks", () => {
  it("warns experimental-webauthn when enabled", async () => {
    const { client, log } = configWith({})
    expect((await client.send("/auth/session")).status).toBe(200)
    expect(log.warnings).toEqual(["experimental-webauthn"])
    expect(log.errors).toEqual([])
  })

  it("without an adapter: MissingAdapter", async () => {
    expect((await configError({ adapter: undefined }))?.type).toBe("MissingAdapter")
  })

  it("an adapter without the authenticator methods: MissingAdapterMethods naming them", async () => {
    const { getAccount: _a, getAuthenticator: _b, updateAuthenticatorCounter: _c, ...partial } = MemoryAdapter()
    const error = await configError({ adapter: partial })
    expect(error?.type).toBe("MissingAdapterMethods")
    expect(error?.message).toContain("getAccount, getAuthenticator, updateAuthenticatorCounter")
  })

  it("two providers with conditional UI: DuplicateConditionalUI", async () => {
    expect((await configError({ providers: [Passkey(), WebAuthn()] }))?.type).toBe("DuplicateConditionalUI")
  })

  it("conditional UI without a `webauthn` autocomplete field: MissingWebAuthnAutocomplete", async () => {
    const providers = [Passkey({ formFields: { email: { label: "Email", autocomplete: "username" } } })]
    expect((await configError({ providers }))?.type).toBe("MissingWebAuthnAutocomplete")
  })

  it("one conditional-UI provider next to one without is fine", async () => {
    const { client } = configWith({ providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] })
    expect((await client.send("/auth/session")).status).toBe(200)
  })
})

describe("register or authenticate (Auth.js' decision)", () => {
  const known = { user: { id: "u1", email: "a@x.test" }, exists: true as const }
  const fresh = { user: { email: "b@x.test" }, exists: false as const }
  it.each([
    ["authenticate", false, null, "authenticate"],
    ["authenticate", true, known, "authenticate"],
    ["register", false, fresh, "register"],
    ["register", true, known, "register"],
    ["register", false, known, null],
    ["register", false, null, null],
    [undefined, false, fresh, "register"],
    [undefined, false, known, "authenticate"],
    [undefined, false, null, "authenticate"],
    [undefined, true, known, null],
  ] as const)("action %s, signed in %s, user %j → %s", (action, signedIn, info, decision) => {
    expect(decideCeremony(action, signedIn, info)).toBe(decision)
  })
})

describe("options requests", () => {
  it("getUserInfo decides who registers: the register options carry its user, under the RP of the auth URL", async () => {
    const getUserInfo = ({ params }: { params: Readonly<Record<string, string>> }) =>
      params.handle ? { user: { email: `${params.handle}@corp.test`, name: "Pat Doe" }, exists: false as const } : null
    const { client } = configWith({
      providers: [Passkey({ getUserInfo, formFields: { handle: { label: "Handle", autocomplete: "username webauthn" } } })],
    })
    const res = await client.send("/auth/webauthn-options/passkey?action=register&handle=pat")
    expect(res.status).toBe(200)
    const body = (await res.json()) as { action: string; options: { rp: unknown; user: { name: string; displayName: string } } }
    expect(body.action).toBe("register")
    expect(body.options.rp).toEqual({ id: "app.test", name: "app.test" })
    expect(body.options.user).toMatchObject({ name: "pat@corp.test", displayName: "Pat Doe" })
    expect(client.jar.get("authchart.flow.passkey")).toBeDefined()
  })

  it("no action and an unknown email: registration, as Auth.js infers it", async () => {
    const { client } = configWith({})
    const res = await client.send("/auth/webauthn-options/passkey?email=New@Example.TEST")
    expect(await res.json()).toMatchObject({ action: "register", options: { user: { name: "new@example.test" } } })
  })
})

describe("webauthn machine", () => {
  const input = { provider: "passkey", now: 1_700_000_000_000 }
  const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as AnyEventObject as never
  const options = { action: "register", options: { challenge: "c-1" } }
  const user = { email: "a@x.test" }

  function issued() {
    const [start] = initialTransition(webauthnMachine, input)
    let [s] = transition(webauthnMachine, start, { type: "SUBMIT", params: { action: "register", email: user.email }, now: input.now })
    expect(s.value).toBe("preparing")
    ;[s] = transition(webauthnMachine, s, done("webauthnOptions", { options, pending: { action: "register", challenge: "c-1", user } }))
    return s
  }

  it("rests after issuing the options, answering them as JSON and keeping them (and the user) sealed", () => {
    const s = issued()
    expect(s.value).toBe("awaitingResponse")
    expect(s.hasTag(AWAITING_INPUT)).toBe(true)
    expect(s.context.reply).toEqual({ type: "json", body: options })
    expect(s.context.pending).toEqual({ action: "register", challenge: "c-1", user })
  })

  it("a refused request ends at once with 400 JSON and nothing to keep", () => {
    const [start] = initialTransition(webauthnMachine, input)
    let [s] = transition(webauthnMachine, start, { type: "SUBMIT", params: {}, now: input.now })
    ;[s] = transition(webauthnMachine, s, done("webauthnOptions", { refused: "Missing email" }))
    expect(s.status).toBe("done")
    expect(s.output).toEqual({ ok: true, reply: { type: "json", status: 400, body: { error: "Missing email" } } })
  })

  it("the response is verified against the issued options, then the shared sign-in tail runs", () => {
    let [s] = transition(webauthnMachine, issued(), { type: "CALLBACK", params: { action: "register", data: "{}" }, now: input.now })
    expect(s.value).toBe("verifying")
    const identity: Identity = { user, account: { provider: "passkey", providerAccountId: "cred", type: "webauthn" } }
    ;[s] = transition(webauthnMachine, s, done("webauthnVerify", identity))
    expect(s.value).toBe("gate")
    expect(s.context.reply).toBeNull()
    expect(s.context.identity).toEqual(identity)
  })

  it("a second SUBMIT while waiting is not accepted (a new options request starts a new run)", () => {
    const s = issued()
    const [next] = transition(webauthnMachine, s, { type: "SUBMIT", params: {}, now: input.now })
    expect(next.value).toBe("awaitingResponse")
  })
})

describe("the sign-in page's passkey form and script", () => {
  const page = () =>
    renderSignIn({
      providers: [
        {
          id: "passkey",
          name: "Passkey",
          type: "webauthn",
          signinUrl: `${ORIGIN}/auth/signin/passkey`,
          callbackUrl: `${ORIGIN}/auth/callback/passkey`,
          webauthn: {
            optionsUrl: `${ORIGIN}/auth/webauthn-options/passkey`,
            formFields: Passkey().formFields ?? {},
            conditionalUI: true,
          },
        },
      ],
      csrfToken: "csrf",
      callbackUrl: `${ORIGIN}/`,
      theme: {},
      nonce: "bm9uY2U=",
      webauthnScriptUrl: `${ORIGIN}/auth/webauthn-script`,
    })

  it("renders the form, its field with webauthn autocomplete, two buttons and the script tag; no inline handlers", () => {
    const html = page()
    expect(html).toContain(
      `<form id="passkey-form" action="${ORIGIN}/auth/callback/passkey" method="POST" data-webauthn-options="${ORIGIN}/auth/webauthn-options/passkey" data-webauthn-conditional>`,
    )
    expect(html).toContain('autocomplete="username webauthn" required data-form-field>')
    expect(html).toContain('data-webauthn-action="authenticate" formnovalidate>Sign in with Passkey</button>')
    expect(html).toContain('data-webauthn-action="register">Register with Passkey</button>')
    expect(html).toContain(`<script src="${ORIGIN}/auth/webauthn-script" nonce="bm9uY2U=" defer></script></head>`)
    expect(html).not.toMatch(/\son[a-z]+=/)
    expect(html).not.toMatch(/<script>/)
  })

  it("the built-in page shows it for a configured provider; the script is served from node_modules", async () => {
    const { client } = configWith({})
    const signIn = await (await client.send("/auth/signin")).text()
    expect(signIn).toContain('<form id="passkey-form"')
    const script = await client.send("/auth/webauthn-script")
    expect(script.status).toBe(200)
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    const source = await script.text()
    expect(source).toContain("[@simplewebauthn/browser@14")
    expect(source).toContain("form[data-webauthn-options]")
    expect(source).not.toContain("sourceMappingURL")
  })

  it("without a WebAuthn provider there is no script (404)", async () => {
    const { client } = configWith({ providers: [], adapter: undefined, experimental: {} })
    expect((await client.send("/auth/webauthn-script")).status).toBe(404)
  })
})
