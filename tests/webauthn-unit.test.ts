/**
 * WebAuthn without a browser: the provider presets, the configuration checks, the register/authenticate
 * decision, the machine driven by pure transitions, the sign-in page's passkey form and the served
 * script, the options JSON, and sign-ins from a software authenticator verified by the library (valid and
 * altered answers). The browser ceremonies are in webauthn.test.ts (Chromium).
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, initialTransition, transition } from "xstate"
import type { AuthConfig, ServerState } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { webauthnMachine } from "../src/machines/webauthn.js"
import { AWAITING_INPUT, type Identity } from "../src/machines/types.js"
import Passkey from "../src/providers/passkey.js"
import WebAuthn from "../src/providers/webauthn.js"
import { decideCeremony } from "../src/runtime/engine/effects/webauthn.js"
import { consumeChallenge } from "../src/runtime/engine/effects/webauthn-support.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { stateKey } from "../src/runtime/limits/server-state.js"
import { type AssertionTweak, SoftAuthenticator, type SoftKeyType } from "../bench/webauthn-authenticator.js"
import { renderSignIn } from "../src/runtime/http/pages/index.js"
import { unsealEnvelope } from "../src/runtime/engine/store.js"
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

/** The last byte of `bytes` with its low bit flipped (a signature that no longer verifies). */
const flip = (bytes: Buffer) => Buffer.concat([bytes.subarray(0, -1), Buffer.from([(bytes.at(-1) as number) ^ 1])])

/** A passkey ceremony through Auth(): the options for `as` (by email), the authenticator's answer, the verify POST. */
async function passkeyCeremony(
  client: AuthClient,
  authenticator: SoftAuthenticator,
  action: "register" | "authenticate",
  { tweak, as = "pat" }: { tweak?: AssertionTweak; as?: string } = {},
): Promise<Response> {
  client.jar.cookies.delete("authjs.session-token")
  const csrfToken = await client.csrf()
  const res = await client.send(`/auth/webauthn-options/passkey?action=${action}&email=${as}@app.test`)
  const { options } = (await res.json()) as { options: { challenge: string; rp: { id?: string }; rpId?: string } }
  const response = action === "register" ? authenticator.register(as, options) : authenticator.authenticate(as, options, tweak)
  return client.send("/auth/callback/passkey", { form: { csrfToken, action, data: JSON.stringify(response) } })
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
    // the flow cookie keeps the challenge and the user, not the options it answered with
    const sealed = client.jar.get("authchart.flow.passkey") ?? ""
    const envelope = await unsealEnvelope(sealed, [SECRET], "authchart.flow.passkey")
    const challenge = (body.options as { challenge?: string }).challenge
    expect(envelope.snapshot).toMatchObject({
      context: { reply: null, pending: { action: "register", challenge, user: { email: "pat@corp.test", name: "Pat Doe" } } },
    })
    expect(JSON.stringify(envelope)).not.toContain("pubKeyCredParams")
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

describe("passkey sign-ins verified by @simplewebauthn/server, through Auth()", () => {
  const FLAG_UP = 0x01
  const FLAG_UV = 0x04
  const FLAG_BE = 0x08
  const FLAG_BS = 0x10
  type Case = { tweak: AssertionTweak; stored?: number; uv?: boolean; accepted: boolean }
  const cases: Record<string, Case> = {
    "a valid assertion": { tweak: {}, accepted: true },
    "a tampered signature": { tweak: { signature: flip }, accepted: false },
    "another challenge": { tweak: { clientData: { challenge: "another-challenge" } }, accepted: false },
    "another origin": { tweak: { clientData: { origin: "https://evil.test" } }, accepted: false },
    "the type of a registration (webauthn.create)": { tweak: { clientData: { type: "webauthn.create" } }, accepted: false },
    "another RP ID's hash": { tweak: { rpId: "evil.test" }, accepted: false },
    "no user presence (UP)": { tweak: { flags: FLAG_UV }, accepted: false },
    "no user verification (UV) where required": { tweak: { flags: FLAG_UP }, accepted: false },
    "no user verification where not required": { tweak: { flags: FLAG_UP }, uv: false, accepted: true },
    "a counter below the stored one": { tweak: { counter: 5 }, stored: 10, accepted: false },
    "a counter equal to the stored one": { tweak: { counter: 10 }, stored: 10, accepted: false },
    "a counter past the stored one": { tweak: { counter: 11 }, stored: 10, accepted: true },
    "counters that stay 0": { tweak: { counter: 0 }, stored: 0, accepted: true },
    "a cross-origin response naming its top origin": {
      tweak: { clientData: { crossOrigin: true, topOrigin: "https://top.test" } },
      accepted: false,
    },
    "a top origin in a same-origin response": { tweak: { clientData: { topOrigin: "https://top.test" } }, accepted: false },
    "a cross-origin response without a top origin": { tweak: { clientData: { crossOrigin: true } }, accepted: true },
    "leftover bytes after the authenticator data": { tweak: { extraAuthData: Buffer.from([0]) }, accepted: false },
    "a token binding with an unknown status": { tweak: { clientData: { tokenBinding: { status: "odd" } } }, accepted: false },
    "backed up but not eligible for backup": { tweak: { flags: FLAG_UP | FLAG_UV | FLAG_BS }, accepted: false },
    "a multi-device credential, backed up": { tweak: { flags: FLAG_UP | FLAG_UV | FLAG_BE | FLAG_BS }, accepted: true },
    "client data with a byte order mark": {
      tweak: { clientDataBytes: (json) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]) },
      accepted: true,
    },
  }

  /**
   * One passkey per key type registered through Auth() (an RSA key takes a while to make), and two
   * configs on its adapter: Passkey() (user verification required) and one that does not require it.
   */
  const registered = new Map<SoftKeyType, ReturnType<typeof register>>()
  const registeredOf = (keyType: SoftKeyType) => {
    let registration = registered.get(keyType)
    if (!registration) registered.set(keyType, (registration = register(keyType)))
    return registration
  }
  async function register(keyType: SoftKeyType) {
    const adapter = MemoryAdapter()
    const strict = configWith({ adapter, rateLimit: false })
    const lenient = configWith({
      adapter,
      rateLimit: false,
      providers: [Passkey({ verifyAuthenticationOptions: { requireUserVerification: false } })],
    })
    const authenticator = new SoftAuthenticator(ORIGIN, keyType)
    expect((await passkeyCeremony(strict.client, authenticator, "register")).headers.get("location")).toBe(ORIGIN)
    const user = await adapter.getUserByEmail?.("pat@app.test")
    const [stored] = (await adapter.listAuthenticatorsByUserId?.(user?.id ?? "")) ?? []
    if (!stored) throw new Error("not registered")
    return { adapter, strict, lenient, authenticator, credentialID: stored.credentialID }
  }

  /** Signs in with the case's answer, the stored counter set first: accepted, and the counter stored after. */
  async function signIn(keyType: SoftKeyType, c: Case) {
    const { adapter, strict, lenient, authenticator, credentialID } = await registeredOf(keyType)
    const { client, log } = c.uv === false ? lenient : strict
    await adapter.updateAuthenticatorCounter?.(credentialID, c.stored ?? 0)
    log.errors.length = 0
    const res = await passkeyCeremony(client, authenticator, "authenticate", { tweak: c.tweak })
    const location = res.headers.get("location")
    const counter = (await adapter.getAuthenticator?.(credentialID))?.counter
    if (location === ORIGIN) {
      expect(log.errors).toEqual([])
      expect(client.jar.get("authjs.session-token")).toBeDefined()
      return { accepted: true, counter }
    }
    expect(location).toBe(`${ORIGIN}/auth/error?error=WebAuthnVerificationError`)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["WebAuthnVerificationError"])
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    return { accepted: false, counter }
  }

  const keyTypes: SoftKeyType[] = ["es256", "ed25519", "rs256"]
  it.each(keyTypes.flatMap((keyType) => Object.keys(cases).map((name) => [keyType, name] as const)))("%s, %s", async (keyType, name) => {
    const c = cases[name] as Case
    const { accepted, counter } = await signIn(keyType, c)
    expect(accepted).toBe(c.accepted)
    // a refusal leaves the stored counter; a sign-in stores the one it sent
    if (!c.accepted) expect(counter).toBe(c.stored ?? 0)
    else if (c.tweak.counter !== undefined) expect(counter).toBe(c.tweak.counter)
    else expect(counter).toBeGreaterThan(c.stored ?? 0)
  })

  it.each([
    ["in its canonical DER form", (der: Buffer) => der, true],
    ["in a flipped form", (der: Buffer) => flip(der), false],
    ["with its sequence length in the long form", (der: Buffer) => Buffer.concat([Buffer.from([0x30, 0x81]), der.subarray(1)]), true],
    ["with its sequence length one short", (der: Buffer) => Buffer.concat([Buffer.from([0x30, (der[1] ?? 0) - 1]), der.subarray(2)]), true],
    [
      "with two superfluous leading zeros",
      (der: Buffer) => Buffer.concat([Buffer.from([0x30, (der[1] ?? 0) + 2, 0x02, (der[3] ?? 0) + 2, 0, 0]), der.subarray(4)]),
      false,
    ],
  ] as const)("an ES256 signature %s: the library's verdict (%s)", async (_, reshape, accepted) => {
    const c: Case = { tweak: { signature: (der) => Buffer.from(reshape(der)) }, accepted }
    expect((await signIn("es256", c)).accepted).toBe(accepted)
  })

  it("a passkey registered and used through Auth(): signed in, counter stored; a tampered response, another user's passkey than the options listed, or an unknown credential is refused", async () => {
    const adapter = MemoryAdapter()
    const { client, log } = configWith({ adapter })
    const authenticator = new SoftAuthenticator(ORIGIN)
    type Answer = { tweak?: AssertionTweak; edit?: (r: Record<string, unknown>) => void; as?: string; email?: string }
    const ceremony = async (action: "register" | "authenticate", { tweak, edit, as = "pat", email = `${as}@app.test` }: Answer = {}) => {
      client.jar.cookies.clear()
      const csrfToken = await client.csrf()
      const res = await client.send(`/auth/webauthn-options/passkey?action=${action}&email=${email}`)
      const { options } = (await res.json()) as { options: { challenge: string; rp: { id?: string }; rpId?: string } }
      const response = action === "register" ? authenticator.register(as, options) : authenticator.authenticate(as, options, tweak)
      edit?.(response)
      return client.send("/auth/callback/passkey", { form: { csrfToken, action, data: JSON.stringify(response) } })
    }
    const refusedWith = (res: Response) => new URL(res.headers.get("location") ?? "").searchParams.get("error")
    expect((await ceremony("register")).headers.get("location")).toBe(ORIGIN)
    expect((await ceremony("register", { as: "sam" })).headers.get("location")).toBe(ORIGIN)
    for (let i = 0; i < 2; i++) {
      expect((await ceremony("authenticate")).headers.get("location")).toBe(ORIGIN)
      expect(client.jar.get("authjs.session-token")).toBeDefined()
    }
    const [stored] = (await adapter.listAuthenticatorsByUserId?.((await adapter.getUserByEmail?.("pat@app.test"))?.id ?? "")) ?? []
    expect(stored?.counter).toBe(2)
    expect(refusedWith(await ceremony("authenticate", { tweak: { signature: flip } }))).toBe("WebAuthnVerificationError")
    // the options for pat listed pat's passkey only (allowCredentials): sam's is refused
    expect(refusedWith(await ceremony("authenticate", { as: "sam", email: "pat@app.test" }))).toBe("WebAuthnVerificationError")
    const unknownId = { id: "AAAAAAAAAAAAAAAAAAAAAA", rawId: "AAAAAAAAAAAAAAAAAAAAAA" }
    expect(refusedWith(await ceremony("authenticate", { edit: (r) => Object.assign(r, unknownId) }))).toBe("Configuration")
    expect(log.errors.map((e) => e.message)).toEqual([
      "The passkey response could not be verified.",
      "The passkey is not one the sign-in options listed.",
      "WebAuthn authenticator not found.",
    ])
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
  })

  it("a challenge answers once in the in-memory port too: one claimed already is refused", async () => {
    const serverState = memoryServerState()
    const { client, log } = configWith({ adapter: MemoryAdapter(), serverState })
    const authenticator = new SoftAuthenticator(ORIGIN)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/webauthn-options/passkey?action=register&email=pat@app.test")
    const { options } = (await res.json()) as { options: { challenge: string; rp: { id?: string } } }
    // the challenge claimed as an answer on another instance sharing this port would claim it
    expect(await serverState.claim(stateKey("webauthn", options.challenge), 60_000)).toBe(true)
    const response = authenticator.register("pat", options)
    const answer = await client.send("/auth/callback/passkey", { form: { csrfToken, action: "register", data: JSON.stringify(response) } })
    expect(new URL(answer.headers.get("location") ?? "").searchParams.get("error")).toBe("WebAuthnVerificationError")
    expect(log.errors.map((e) => e.message)).toEqual(["This challenge was already answered."])
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    // the claim itself: true the first time, false after (on any instance sharing the port)
    const ctx = (state: ServerState) => ({ serverState: state }) as never
    expect(await consumeChallenge(ctx(serverState), "c1")).toBe(true)
    expect(await consumeChallenge(ctx(serverState), "c1")).toBe(false)
  })

  it("a passkey used while another user is signed in: AccountNotLinked, that user stays signed in", async () => {
    const adapter = MemoryAdapter()
    const { client, log } = configWith({ adapter })
    const authenticator = new SoftAuthenticator(ORIGIN)
    const ceremony = async (action: "register" | "authenticate") => {
      const csrfToken = await client.csrf()
      const res = await client.send(`/auth/webauthn-options/passkey?action=${action}&email=pat@app.test`)
      const { options } = (await res.json()) as { options: { challenge: string; rp: { id?: string }; rpId?: string } }
      const response = action === "register" ? authenticator.register("pat", options) : authenticator.authenticate("pat", options)
      return client.send("/auth/callback/passkey", { form: { csrfToken, action, data: JSON.stringify(response) } })
    }
    expect((await ceremony("register")).headers.get("location")).toBe(ORIGIN)
    // sam, signed in some other way, has no passkey: the sign-in options list none, so pat's may answer
    const sam = await adapter.createUser({ id: "sam", email: "sam@app.test", emailVerified: null })
    const session = "sam-session-token"
    await adapter.createSession({ sessionToken: session, userId: sam.id, expires: new Date(Date.now() + 3_600_000) })
    client.jar.cookies.clear()
    client.jar.cookies.set("authjs.session-token", session)
    const refused = await ceremony("authenticate")
    expect(refused.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=AccountNotLinked`)
    expect(client.jar.get("authjs.session-token")).toBe(session)
    expect(log.errors.map((e) => (e as { type?: string }).type)).toEqual(["AccountNotLinked"])
  })
})

describe("the options JSON, made by @simplewebauthn/server", () => {
  const base64url32 = /^[A-Za-z0-9_-]{43}$/

  it("registration: the provider's options over the library's defaults, a fresh challenge and user handle, the user's passkeys excluded; the provider's selection left as it was", async () => {
    const provider = Passkey()
    const adapter = MemoryAdapter()
    const { client } = configWith({ adapter, providers: [provider] })
    const authenticator = new SoftAuthenticator(ORIGIN)
    expect((await passkeyCeremony(client, authenticator, "register")).headers.get("location")).toBe(ORIGIN)
    // signed in: another passkey for the same user, the first one excluded
    const res = await client.send("/auth/webauthn-options/passkey?action=register")
    const { action, options } = (await res.json()) as { action: string; options: Record<string, unknown> }
    expect(action).toBe("register")
    const [stored] = (await adapter.listAuthenticatorsByUserId?.((await adapter.getUserByEmail?.("pat@app.test"))?.id ?? "")) ?? []
    const lib = await import("@simplewebauthn/server")
    expect(options).toEqual({
      challenge: expect.stringMatching(base64url32),
      rp: { name: "app.test", id: "app.test" },
      user: { id: expect.stringMatching(base64url32), name: "pat@app.test", displayName: "" },
      pubKeyCredParams: lib.getDefaultSupportedAlgorithmIDs().map((alg) => ({ alg, type: "public-key" })),
      timeout: 300_000,
      attestation: "none",
      excludeCredentials: [
        { id: Buffer.from(stored?.credentialID ?? "", "base64").toString("base64url"), transports: ["internal"], type: "public-key" },
      ],
      authenticatorSelection: { residentKey: "required", userVerification: "required", requireResidentKey: true },
      extensions: { credProps: true },
      hints: [],
    })
    expect(provider.registrationOptions?.authenticatorSelection).toEqual({ residentKey: "required", userVerification: "required" })
    // each request its own challenge
    const again = (await (await client.send("/auth/webauthn-options/passkey?action=register")).json()) as typeof options
    expect(again.challenge).not.toBe(options.challenge)
  })

  it("sign-in: the named user's passkeys allowed (base64url ids, transports); none named, none listed", async () => {
    const adapter = MemoryAdapter()
    const { client } = configWith({ adapter })
    expect((await passkeyCeremony(client, new SoftAuthenticator(ORIGIN), "register")).headers.get("location")).toBe(ORIGIN)
    client.jar.cookies.clear()
    const [stored] = (await adapter.listAuthenticatorsByUserId?.((await adapter.getUserByEmail?.("pat@app.test"))?.id ?? "")) ?? []
    const named = await client.send("/auth/webauthn-options/passkey?action=authenticate&email=pat@app.test")
    expect(await named.json()).toEqual({
      action: "authenticate",
      options: {
        rpId: "app.test",
        challenge: expect.stringMatching(base64url32),
        allowCredentials: [
          { id: Buffer.from(stored?.credentialID ?? "", "base64").toString("base64url"), transports: ["internal"], type: "public-key" },
        ],
        timeout: 300_000,
        userVerification: "required",
      },
    })
    const discoverable = (await (await client.send("/auth/webauthn-options/passkey?action=authenticate")).json()) as {
      options: Record<string, unknown>
    }
    expect(discoverable.options.allowCredentials).toBeUndefined()
    expect(discoverable.options.challenge).toMatch(base64url32)
  })
})
