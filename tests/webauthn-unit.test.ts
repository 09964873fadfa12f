/**
 * WebAuthn without a browser: the provider presets, the configuration checks, the register/authenticate
 * decision, the machine driven by pure transitions, the sign-in page's passkey form and the served
 * script, the options JSON beside the library's. The ceremonies themselves are in webauthn.test.ts (Chromium).
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, initialTransition, transition } from "xstate"
import type { AuthConfig, ServerState } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import { webauthnMachine } from "../src/machines/webauthn.js"
import { AWAITING_INPUT, type Identity } from "../src/machines/types.js"
import Passkey from "../src/providers/passkey.js"
import WebAuthn from "../src/providers/webauthn.js"
import { decideCeremony } from "../src/runtime/effects/webauthn.js"
import { consumeChallenge } from "../src/runtime/effects/webauthn-support.js"
import { memoryServerState } from "../src/runtime/server-state-memory.js"
import { stateKey } from "../src/runtime/server-state.js"
import { verifyAssertion } from "../src/runtime/effects/webauthn-assertion.js"
import {
  type AuthenticationInput,
  type RegistrationInput,
  authenticationFrom,
  authenticationOptions,
  authenticationTemplate,
  registrationFrom,
  registrationOptions,
  registrationTemplate,
} from "../src/runtime/effects/webauthn-options.js"
import type { generateAuthenticationOptions, generateRegistrationOptions } from "@simplewebauthn/server"
import { isoCBOR } from "@simplewebauthn/server/helpers"
import { type AssertionTweak, SoftAuthenticator, type SoftKeyType } from "../bench/webauthn-authenticator.js"
import { renderSignIn } from "../src/runtime/pages/index.js"
import { unsealEnvelope } from "../src/runtime/store.js"
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

describe("passkey assertions checked with node:crypto (webauthn-assertion.ts), beside the library", () => {
  const rpId = "app.test"
  const FLAG_UP = 0x01
  const FLAG_UV = 0x04
  const FLAG_BE = 0x08
  const FLAG_BS = 0x10
  const FLAG_ED = 0x80
  const flip = (bytes: Buffer) => Buffer.concat([bytes.subarray(0, -1), Buffer.from([(bytes.at(-1) as number) ^ 1])])
  type Case = { tweak: AssertionTweak; stored?: number; uv?: boolean; accepted: boolean }
  const cases: Record<string, Case> = {
    "a valid assertion": { tweak: {}, accepted: true },
    "a tampered signature": { tweak: { signature: flip }, accepted: false },
    "another challenge": { tweak: { clientData: { challenge: "another-challenge" } }, accepted: false },
    "another challenge of the same length": { tweak: { clientData: { challenge: "the-challengf" } }, accepted: false },
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
    "a cross-origin response without a top origin (as the library)": { tweak: { clientData: { crossOrigin: true } }, accepted: true },
    "leftover bytes after the authenticator data": { tweak: { extraAuthData: Buffer.from([0]) }, accepted: false },
    "a token binding with an unknown status": { tweak: { clientData: { tokenBinding: { status: "odd" } } }, accepted: false },
    "backed up but not eligible for backup": { tweak: { flags: FLAG_UP | FLAG_UV | FLAG_BS }, accepted: false },
    "a multi-device credential, backed up": { tweak: { flags: FLAG_UP | FLAG_UV | FLAG_BE | FLAG_BS }, accepted: true },
    "client data with a byte order mark (dropped as the library's decoder drops it)": {
      tweak: { clientDataBytes: (json) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]) },
      accepted: true,
    },
  }

  const registrations = new Map<SoftKeyType, ReturnType<typeof register>>()
  /** One key per type for every case (an RSA key takes a while to make). */
  const registered = (keyType: SoftKeyType) => {
    let registration = registrations.get(keyType)
    if (!registration) registrations.set(keyType, (registration = register(keyType)))
    return registration
  }
  async function register(keyType: SoftKeyType) {
    const authenticator = new SoftAuthenticator(ORIGIN, keyType)
    const lib = await import("@simplewebauthn/server")
    const response = authenticator.register("pat", { challenge: "register-challenge", rp: { id: rpId } })
    const reg = await lib.verifyRegistrationResponse({
      response: response as never,
      expectedChallenge: "register-challenge",
      expectedOrigin: ORIGIN,
      expectedRPID: rpId,
    })
    const credential = reg.registrationInfo?.credential
    if (!credential) throw new Error("not registered")
    return { authenticator, lib, credential, stored: Buffer.from(credential.publicKey).toString("base64") }
  }

  /** Accepted by node:crypto's path and by the library? (a refusal is a throw or `verified: false`) */
  async function both(keyType: SoftKeyType, c: Case) {
    const { authenticator, lib, credential, stored } = await registered(keyType)
    const response = authenticator.authenticate("pat", { challenge: "the-challenge", rpId }, c.tweak) as never
    const expected = { challenge: "the-challenge", origin: ORIGIN, rpId, requireUserVerification: c.uv ?? true }
    const counter = c.stored ?? 0
    let fast: boolean | undefined
    try {
      fast = verifyAssertion(response, expected, { publicKey: stored, counter })?.verified
    } catch {
      fast = false
    }
    const library = await lib
      .verifyAuthenticationResponse({
        response,
        expectedChallenge: "the-challenge",
        expectedOrigin: ORIGIN,
        expectedRPID: rpId,
        requireUserVerification: c.uv ?? true,
        credential: { ...credential, counter },
      })
      .then(
        (v) => v.verified,
        () => false,
      )
    return { fast, library }
  }

  const keyTypes: SoftKeyType[] = ["es256", "ed25519", "rs256"]
  it.each(
    keyTypes.flatMap((keyType) => Object.keys(cases).map((name) => [keyType, name] as const)),
  )("%s, %s: the same verdict on both paths", async (keyType, name) => {
    const c = cases[name] as Case
    expect(await both(keyType, c)).toEqual({ fast: c.accepted, library: c.accepted })
  })

  it.each([
    ["in its canonical DER form: checked by node:crypto", (der: Buffer) => der, true, true],
    ["in a flipped form: refused by node:crypto", (der: Buffer) => flip(der), false, false],
    [
      "with its sequence length in the long form: left to the library, which accepts it",
      (der: Buffer) => Buffer.concat([Buffer.from([0x30, 0x81]), der.subarray(1)]),
      undefined,
      true,
    ],
    [
      "with its sequence length one short: left to the library, which accepts it",
      (der: Buffer) => Buffer.concat([Buffer.from([0x30, (der[1] ?? 0) - 1]), der.subarray(2)]),
      undefined,
      true,
    ],
    [
      "with two superfluous leading zeros: left to the library, which refuses it",
      (der: Buffer) => Buffer.concat([Buffer.from([0x30, (der[1] ?? 0) + 2, 0x02, (der[3] ?? 0) + 2, 0, 0]), der.subarray(4)]),
      undefined,
      false,
    ],
  ] as const)("an ES256 signature %s", async (_, reshape, fast, library) => {
    const c: Case = { tweak: { signature: (der) => Buffer.from(reshape(der)) }, accepted: library }
    expect(await both("es256", c)).toEqual({ fast, library })
  })

  it("extension data, or a key type it does not handle (ES384), is left to the library", async () => {
    const { authenticator, stored } = await registered("es256")
    const expected = { challenge: "c", origin: ORIGIN, rpId, requireUserVerification: true }
    const withExtensions = authenticator.authenticate(
      "pat",
      { challenge: "c", rpId },
      { flags: FLAG_UP | FLAG_UV | FLAG_ED, extraAuthData: Buffer.from([0xa0]) },
    )
    expect(verifyAssertion(withExtensions as never, expected, { publicKey: stored, counter: 0 })).toBeUndefined()
    const es384 = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -35],
        [-1, 2],
        [-2, new Uint8Array(48)],
        [-3, new Uint8Array(48)],
      ]),
    )
    const plain = authenticator.authenticate("pat", { challenge: "c", rpId }) as never
    expect(verifyAssertion(plain, expected, { publicKey: Buffer.from(es384).toString("base64"), counter: 0 })).toBeUndefined()
    // client data the library's base64url decoder reads its own way (a character outside the alphabet)
    const stray = authenticator.authenticate("pat", { challenge: "c", rpId }) as { response: { clientDataJSON: string } }
    stray.response.clientDataJSON = `.${stray.response.clientDataJSON}`
    expect(verifyAssertion(stray as never, expected, { publicKey: stored, counter: 0 })).toBeUndefined()
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

  it("a challenge answers once in the in-memory port too (its synchronous claim): one claimed already is refused", async () => {
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
    // the claim itself: at once with the in-memory port, a promise with any other (a copy is another port)
    const ctx = (state: ServerState) => ({ config: { serverState: state } }) as never
    expect(consumeChallenge(ctx(serverState), "c1")).toBe(true)
    expect(consumeChallenge(ctx(serverState), "c1")).toBe(false)
    const other = { ...serverState }
    const claiming = consumeChallenge(ctx(other), "c2")
    expect(claiming).toBeInstanceOf(Promise)
    expect(await claiming).toBe(true)
    expect(consumeChallenge(ctx(serverState), "c2")).toBe(false)
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

describe("the options JSON (webauthn-options.ts) is the library's, built synchronously", () => {
  const bytes = (n: number, from: number) => Uint8Array.from({ length: n }, (_, i) => (from + i * 37) % 256)
  const challenge = bytes(32, 1)
  const userID = bytes(32, 2)
  const stored = [{ id: "AAECAwQFBgcICQ", transports: ["internal", "hybrid"] }, { id: "qrvM3e7_-A==" }]
  const signIns: AuthenticationInput[] = [
    { rpID: "example.com", challenge },
    { rpID: "example.com", challenge, allowCredentials: stored, timeout: 300_000, userVerification: "required" },
    { rpID: "example.com", challenge, allowCredentials: [], userVerification: "discouraged", extensions: { appid: "https://example.com" } },
    { ...Passkey().authenticationOptions, rpID: "login.example.com", challenge },
  ]
  const registrations: RegistrationInput[] = [
    { rpName: "example.com", rpID: "example.com", userName: "ada@example.com", userID, challenge },
    {
      ...Passkey().registrationOptions,
      rpName: "Example",
      rpID: "example.com",
      userName: "ada@example.com",
      userID,
      challenge,
      excludeCredentials: stored,
    },
    {
      ...WebAuthn().registrationOptions,
      rpName: "Example",
      rpID: "example.com",
      userName: "ada@example.com",
      userDisplayName: "Ada",
      userID,
      challenge,
      attestationType: "direct",
      supportedAlgorithmIDs: [-7],
      extensions: { largeBlob: { support: "preferred" } },
      authenticatorSelection: { requireResidentKey: true, userVerification: "discouraged" },
    },
    ...["securityKey", "localDevice", "remoteDevice", "elsewhere"].map((preferredAuthenticatorType) => ({
      rpName: "Example",
      rpID: "example.com",
      userName: "ada@example.com",
      userID,
      challenge,
      preferredAuthenticatorType,
      authenticatorSelection: { residentKey: "discouraged", authenticatorAttachment: "platform" },
    })),
  ]
  // the library writes its residentKey decision into the selection it is given: each side gets a copy
  const copy = <T>(value: T): T => structuredClone(value)
  const lib = () => import("@simplewebauthn/server")

  it.each(
    signIns.map((input, i) => [i, input] as const),
  )("sign-in options %i: the same JSON, field for field and in order", async (_, input) => {
    const theirs = await (await lib()).generateAuthenticationOptions(copy(input) as Parameters<typeof generateAuthenticationOptions>[0])
    expect(JSON.stringify(authenticationOptions(copy(input)))).toBe(JSON.stringify(theirs))
  })

  it.each(
    registrations.map((input, i) => [i, input] as const),
  )("registration options %i: the same JSON, field for field and in order", async (_, input) => {
    const library = await lib()
    const theirs = await library.generateRegistrationOptions(copy(input) as Parameters<typeof generateRegistrationOptions>[0])
    const ours = registrationOptions(copy(input), library.getDefaultSupportedAlgorithmIDs())
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs))
  })

  const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
  const asSent = (list: AuthenticationInput["allowCredentials"]) =>
    (list ?? []).map((d) => ({ ...d, id: d.id.replace(/=/g, ""), type: "public-key" as const }))
  const defaults = [-8, -7, -257]

  it.each(
    signIns.map((input, i) => [i, input] as const),
  )("sign-in options %i from the template made once: the same JSON as made whole", (_, input) => {
    const { challenge: bytes, allowCredentials, ...fixed } = copy(input)
    // a request that names no credential sends the template's (an empty list given: the provider's own)
    const named = allowCredentials !== undefined && allowCredentials.length > 0
    const template = authenticationTemplate(named ? fixed : { ...fixed, allowCredentials })
    const ours = authenticationFrom(template, b64u(bytes), asSent(allowCredentials))
    expect(JSON.stringify(ours)).toBe(JSON.stringify(authenticationOptions(copy(input))))
    // credentials given in the provider's own options are what a request that names none sends
    const given = authenticationTemplate({ ...fixed, allowCredentials: stored })
    expect(authenticationFrom(given, "c", []).allowCredentials).toEqual(asSent(stored))
    expect(authenticationFrom(given, "c", asSent(stored.slice(1))).allowCredentials).toEqual(asSent(stored.slice(1)))
    expect(Object.isFrozen(template)).toBe(true)
  })

  it.each(
    registrations.map((input, i) => [i, input] as const),
  )("registration options %i from the template made once: the same JSON as made whole, the template frozen", (_, input) => {
    const { challenge: bytes, userID: handle, userName, userDisplayName, excludeCredentials, ...fixed } = copy(input)
    const template = registrationTemplate(fixed, defaults)
    const user = { id: b64u(handle), name: userName, displayName: userDisplayName }
    const ours = registrationFrom(template, b64u(bytes), user, asSent(excludeCredentials))
    expect(JSON.stringify(ours)).toBe(JSON.stringify(registrationOptions(copy(input), defaults)))
    for (const part of [template, template.rp, template.user, template.authenticatorSelection, template.extensions, template.hints]) {
      expect(Object.isFrozen(part)).toBe(true)
    }
    // no display name: the template's (the provider's own, else empty), as the whole options default it
    const unnamed = registrationFrom(
      registrationTemplate({ ...fixed, userDisplayName: "Site user" }, defaults),
      "c",
      { ...user, displayName: undefined },
      [],
    )
    expect(unnamed.user.displayName).toBe("Site user")
    expect(registrationFrom(template, "c", { ...user, displayName: "" }, []).user.displayName).toBe("")
  })

  it("a credential id that is not base64url is refused with the library's error; the given selection is left as it was", async () => {
    const library = await lib()
    const bad = [{ id: "a+b/c" }]
    const signIn = { rpID: "example.com", challenge, allowCredentials: bad }
    await expect(library.generateAuthenticationOptions(signIn)).rejects.toThrow(
      'allowCredential id "a+b/c" is not a valid base64url string',
    )
    expect(() => authenticationOptions(signIn)).toThrow('allowCredential id "a+b/c" is not a valid base64url string')
    const registration = { rpName: "x", rpID: "example.com", userName: "ada", userID, challenge, excludeCredentials: bad }
    await expect(library.generateRegistrationOptions(registration)).rejects.toThrow(
      'excludeCredential id "a+b/c" is not a valid base64url string',
    )
    expect(() => registrationOptions(registration, [-7])).toThrow('excludeCredential id "a+b/c" is not a valid base64url string')
    const selection = { residentKey: "required" }
    registrationOptions({ rpName: "x", rpID: "example.com", userName: "ada", userID, challenge, authenticatorSelection: selection }, [-7])
    expect(selection).toEqual({ residentKey: "required" })
  })
})
