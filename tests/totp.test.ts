/**
 * Extra steps in built-in flows: the TOTP second factor after credentials, OIDC and email sign-in, and
 * an "accept the terms" step for new OAuth users only.
 */
import { createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { type AuthConfig, defineStep, emailFlow, extendFlow, oauthFlow } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Nodemailer from "../src/providers/nodemailer.js"
import {
  USED_CODES_SWEEP_AT,
  base32Decode,
  base32Encode,
  createTotpEnrollment,
  hotp,
  memoryUsedCodes,
  totpCode,
  totpStep,
  verifyTotp,
} from "../src/steps/totp.js"
import { appConfig, users } from "./fixtures/credentials-with-totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger, tamperJwe } from "./helpers.js"
import { type OidcServer, startOidcProvider } from "./support/oidc-provider.js"
import { unsealEnvelope } from "../src/runtime/engine/store.js"
import { startSmtp } from "./support/smtp.js"

const ADA_SECRET = users.get("ada")?.totpSecret as string
const FLOW_COOKIE = "authchart.flow.credentials"

async function passwordStep(client: AuthClient, username = "ada", password = "correct horse") {
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username, password } })
  return { res, csrfToken }
}

async function sendCode(client: AuthClient, csrfToken: string, code: string, provider = "credentials") {
  return client.send(`/auth/callback/${provider}`, { form: { csrfToken, step: "totp", code } })
}

const session = async (client: AuthClient) => (await (await client.send("/auth/session")).json()) as { user: { name: string } } | null

describe("TOTP core (RFC 6238)", () => {
  it("matches the RFC 6238 SHA-1 test vectors", () => {
    const key = Buffer.from("12345678901234567890")
    expect(hotp(key, Math.floor(59 / 30), 8)).toBe("94287082")
    expect(hotp(key, Math.floor(1111111109 / 30), 8)).toBe("07081804")
    expect(hotp(key, Math.floor(2000000000 / 30), 8)).toBe("69279037")
  })

  it("reads a base32 secret in either case, with spaces, dashes and padding left out, and refuses any other character", () => {
    const key = Buffer.from("12345678901234567890")
    const secret = base32Encode(key)
    expect(base32Decode(secret)).toEqual(key)
    const grouped = `${secret
      .toLowerCase()
      .match(/.{1,4}/g)
      ?.join(" - ")}\t===\n`
    expect(base32Decode(grouped)).toEqual(key)
    for (let n = 0; n <= 21; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255))
      expect(base32Decode(base32Encode(bytes))).toEqual(bytes)
    }
    // beyond ASCII as before: Unicode spaces left out, letters that upper-case to the alphabet taken
    expect(base32Decode(`\u00a0${secret.slice(0, 8)}\u3000${secret.slice(8)}`)).toEqual(key)
    expect(base32Decode("\u017fe")).toEqual(base32Decode("SE"))
    for (const bad of [`${secret}1`, `${secret}8`, `0${secret}`, `${secret}!`, `${secret}é`, "_"]) {
      expect(() => base32Decode(bad)).toThrow(new TypeError("Invalid base32 secret."))
    }
  })

  it("accepts ±1 step and nothing further", () => {
    const secret = base32Encode(Buffer.from("12345678901234567890"))
    const now = 1_700_000_000_000
    expect(verifyTotp(secret, totpCode(secret, now - 30_000), now)).not.toBeNull()
    expect(verifyTotp(secret, totpCode(secret, now + 30_000), now)).not.toBeNull()
    expect(verifyTotp(secret, totpCode(secret, now - 90_000), now)).toBeNull()
    expect(verifyTotp(secret, "12345", now)).toBeNull()
  })

  it("checks a code as node:crypto's HMAC-SHA1 does, for keys of any length (hashed first past 64 bytes)", () => {
    const now = 1_700_000_000_000
    const current = Math.floor(now / 30_000)
    for (const length of [1, 10, 20, 32, 63, 64, 65, 100, 200]) {
      const key = Buffer.from(Array.from({ length }, (_, i) => (i * 53 + length) & 255))
      const secret = base32Encode(key)
      for (const step of [current - 1, current, current + 1]) {
        const mac = createHmac("sha1", key)
          .update(Buffer.from(step.toString(16).padStart(16, "0"), "hex"))
          .digest()
        const offset = (mac[19] as number) & 0x0f
        const code = String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0")
        expect(hotp(key, step)).toBe(code)
        expect(verifyTotp(secret, code, now)).toBe(step)
        expect(verifyTotp(secret.toLowerCase().replace(/(.{4})/g, "$1-"), code, now)).toBe(step)
      }
      // the secret as people type it: lower case, grouped, padded, Unicode spaces
      const typed = `\u00a0${secret.toLowerCase().replace(/(.{4})/g, "$1 ")}==`
      expect(verifyTotp(typed, hotp(key, current), now)).toBe(current)
      const wrong = String((Number(hotp(key, current)) + 1) % 1_000_000).padStart(6, "0")
      if (![current - 1, current + 1].some((s) => hotp(key, s) === wrong)) expect(verifyTotp(secret, wrong, now)).toBeNull()
    }
    // a time step past 2^32 (the counter's high word)
    const far = (2 ** 32 + 5) * 30_000
    const key = Buffer.from("12345678901234567890")
    expect(verifyTotp(base32Encode(key), hotp(key, 2 ** 32 + 5), far)).toBe(2 ** 32 + 5)
    expect(() => verifyTotp("JBSWY3DP!", "123456", now)).toThrow(new TypeError("Invalid base32 secret."))
    expect(() => verifyTotp("JBSWY3DPé", "123456", now)).toThrow(new TypeError("Invalid base32 secret."))
  })

  it("gives RFC 4226 HOTP values (HMAC-SHA1, dynamic truncation) for keys of 0-130 bytes, 6-8 digits and counters past 2^32", () => {
    let seed = 7
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31)
    for (let n = 0; n < 400; n++) {
      const key = Buffer.from(Array.from({ length: n % 131 }, () => next() & 255))
      const counter = n % 5 === 0 ? next() * 2 ** 21 + next() : next()
      const digits = 6 + (n % 3)
      const message = Buffer.alloc(8)
      message.writeUInt32BE(Math.floor(counter / 2 ** 32), 0)
      message.writeUInt32BE(counter >>> 0, 4)
      const mac = createHmac("sha1", key).update(message).digest()
      const value = (mac.readUInt32BE((mac[19] as number) & 0x0f) & 0x7fffffff) % 10 ** digits
      expect(hotp(key, counter, digits)).toBe(String(value).padStart(digits, "0"))
    }
    expect(verifyTotp(base32Encode(Buffer.from("12345678901234567890")), "000000")).toBeNull()
  })

  it("the deprecated in-process registry refuses a used step and forgets only users whose last step is stale", async () => {
    const used = memoryUsedCodes()
    const step = 60_000_000
    expect(await used.claim("fresh", step)).toBe(true)
    expect(await used.claim("fresh", step)).toBe(false)
    expect(await used.claim("fresh", step - 1)).toBe(false)
    expect(await used.claim("stale", step - 500)).toBe(true)
    for (let i = 2; i < USED_CODES_SWEEP_AT; i++) expect(await used.claim(`filler-${i}`, step)).toBe(true)
    // full: the next new user sweeps; the stale entry goes, every recent one stays and still blocks
    expect(await used.claim("newcomer", step)).toBe(true)
    expect(await used.claim("stale", step - 500)).toBe(true)
    expect(await used.claim("fresh", step)).toBe(false)
    expect(await used.claim("filler-2", step)).toBe(false)
  })

  it("enrolment gives a secret, an otpauth:// URI and a QR code SVG", async () => {
    const enrolment = createTotpEnrollment({ accountName: "ada@example.test", issuer: "authchart demo" })
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(enrolment.uri).toMatch(/^otpauth:\/\/totp\/authchart%20demo:ada%40example\.test\?secret=[A-Z2-7]{32}&issuer=/)
    expect(await enrolment.qrSvg()).toContain("<svg")
  })
})

describe("TOTP after credentials sign-in", () => {
  it("the app's own code for it is under 40 lines", () => {
    const lines = readFileSync(new URL("./fixtures/credentials-with-totp.ts", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.trim().startsWith("//"))
    expect(lines.length).toBeLessThan(40)
  })

  it("right code → session; the session is issued only after the step", async () => {
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true })
    const { res, csrfToken } = await passwordStep(client)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('name="code"')
    expect(client.jar.get("authjs.session-token")).toBeUndefined()
    expect(client.jar.get(FLOW_COOKIE)).toBeTruthy()
    const done = await sendCode(client, csrfToken, totpCode(ADA_SECRET))
    expect(done.status).toBe(303)
    expect(client.jar.get(FLOW_COOKIE)).toBeUndefined()
    expect((await session(client))?.user.name).toBe("Ada")
  })

  it("a user without a TOTP secret skips the step", async () => {
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true })
    const { res } = await passwordStep(client, "bob", "battery staple")
    expect(res.status).toBe(303)
    expect((await session(client))?.user.name).toBe("Bob")
  })

  it("wrong code → stays with a message; the cap fails the flow, no session, state cleared", async () => {
    const log = captureLogger()
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true, logger: log.logger })
    const { csrfToken } = await passwordStep(client)
    for (let i = 0; i < 4; i++) {
      const again = await sendCode(client, csrfToken, "000000")
      expect(again.status).toBe(200)
      expect(await again.text()).toContain("That code is not valid")
    }
    const failed = await sendCode(client, csrfToken, "000000")
    expect(failed.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(client.jar.get(FLOW_COOKIE)).toBeUndefined()
    expect(await session(client)).toBeNull()
    const late = await sendCode(client, csrfToken, totpCode(ADA_SECRET))
    expect(late.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
  })

  it("a code already used is refused within its window", async () => {
    const config = { ...appConfig(SECRET), trustHost: true }
    const first = new AuthClient(config)
    const { csrfToken } = await passwordStep(first)
    const code = totpCode(ADA_SECRET)
    expect((await sendCode(first, csrfToken, code)).status).toBe(303)
    const second = new AuthClient(config)
    const again = await passwordStep(second)
    const replay = await sendCode(second, again.csrfToken, code)
    expect(replay.status).toBe(200)
    expect(await replay.text()).toContain("already used")
  })

  it("an expired step → FlowStateError; a tampered pending state → FlowStateError", async () => {
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true })
    const { csrfToken } = await passwordStep(client)
    const sealed = client.jar.get(FLOW_COOKIE) as string
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 16 * 60 * 1000 })
    try {
      const late = await sendCode(client, csrfToken, totpCode(ADA_SECRET))
      expect(late.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    } finally {
      vi.useRealTimers()
    }
    client.jar.cookies.set(FLOW_COOKIE, tamperJwe(sealed))
    const tampered = await sendCode(client, csrfToken, totpCode(ADA_SECRET))
    expect(tampered.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(await session(client)).toBeNull()
  })

  it("the step's form is CSRF-protected", async () => {
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true })
    await passwordStep(client)
    const res = await client.send("/auth/callback/credentials", { form: { step: "totp", code: totpCode(ADA_SECRET) } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
  })
})

describe("steps after OIDC and email sign-in", () => {
  let idp: OidcServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    idp = await startOidcProvider({
      clients: [{ client_id: "steps", client_secret: "steps-secret", redirect_uris: [`${ORIGIN}/auth/callback/idp`] }],
    })
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await idp?.stop()
    await smtp?.stop()
  })
  const idpProvider = () => ({
    id: "idp",
    name: "IdP",
    type: "oidc" as const,
    issuer: idp.issuer,
    clientId: "steps",
    clientSecret: "steps-secret",
  })

  async function oidcUntilStep(client: AuthClient) {
    const csrfToken = await client.csrf()
    const start = await client.send("/auth/signin/idp", { form: { csrfToken, callbackUrl: "/home" } })
    const answer = (await idp.authorize(start.headers.get("location") as string)) as { url: string }
    const url = new URL(answer.url)
    return { res: await client.send(`${url.pathname}${url.search}`), csrfToken }
  }

  it("TOTP after OIDC sign-in", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [idpProvider()] as AuthConfig["providers"],
      flows: [extendFlow(oauthFlow, [totpStep({ secretFor: (u) => (u.email === "alice@example.test" ? ADA_SECRET : null) })])],
    }
    const client = new AuthClient(config)
    const { res, csrfToken } = await oidcUntilStep(client)
    expect(res.status).toBe(200)
    expect(await session(client)).toBeNull()
    const done = await sendCode(client, csrfToken, totpCode(ADA_SECRET), "idp")
    expect(done.headers.get("location")).toBe(`${ORIGIN}/home`)
    expect((await session(client))?.user.name).toBe("Alice Example")
  })

  it("TOTP after OIDC: the account rests sealed in the flow cookie; after the step the callbacks get the whole token response, linkAccount the stored fields", async () => {
    const seen: { jwt: unknown[]; signIn: unknown[]; event: unknown[]; linked: unknown[] } = { jwt: [], signIn: [], event: [], linked: [] }
    const adapter = MemoryAdapter()
    const linkAccount = adapter.linkAccount.bind(adapter)
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: {
        ...adapter,
        linkAccount: (account) => {
          seen.linked.push({ ...account })
          return linkAccount(account)
        },
      },
      session: { strategy: "jwt" },
      providers: [idpProvider()] as AuthConfig["providers"],
      flows: [extendFlow(oauthFlow, [totpStep({ secretFor: (u) => (u.email === "alice@example.test" ? ADA_SECRET : null) })])],
      callbacks: {
        signIn: ({ account }) => Boolean(seen.signIn.push(account)),
        jwt: ({ token, account }) => {
          if (account) seen.jwt.push(account)
          return token
        },
      },
      events: { signIn: ({ account }) => void seen.event.push(account) },
    }
    const client = new AuthClient(config)
    const { res, csrfToken } = await oidcUntilStep(client)
    expect(res.status).toBe(200)
    const resting = client.jar.get("authchart.flow.idp") ?? ""
    expect(resting).not.toBe("")
    // the identity, the whole token response with it, rests in the sealed flow cookie only
    const envelope = await unsealEnvelope(resting, [SECRET], "authchart.flow.idp")
    expect(JSON.stringify(envelope.snapshot)).toContain('"expires_in"')
    const done = await sendCode(client, csrfToken, totpCode(ADA_SECRET), "idp")
    expect(done.headers.get("location")).toBe(`${ORIGIN}/home`)
    const raw = {
      access_token: expect.any(String),
      id_token: expect.any(String),
      expires_in: expect.any(Number),
      expires_at: expect.any(Number),
      token_type: expect.stringMatching(/^bearer$/i),
      provider: "idp",
      type: "oidc",
      providerAccountId: expect.any(String),
    }
    for (const list of [seen.signIn, seen.jwt, seen.event]) expect(list).toEqual([expect.objectContaining(raw)])
    expect(seen.linked).toHaveLength(1)
    const linked = seen.linked[0] as Record<string, unknown>
    expect(linked).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String), userId: expect.any(String) })
    expect(linked.expires_in).toBeUndefined()
    const { access_token, id_token } = seen.jwt[0] as Record<string, string>
    expect(resting).not.toContain(access_token)
    expect(resting).not.toContain(id_token)
  })

  it("accept the terms: shown to new OAuth users only", async () => {
    const terms = defineStep({
      id: "terms",
      when: ({ isNewUser }) => isNewUser,
      page: () => ({
        title: "Terms of use",
        fields: `<label><input type="checkbox" name="accept" value="yes"> I accept the terms</label>`,
      }),
      submit: ({ params }) => (params.accept === "yes" ? true : { result: "retry", message: "Please accept the terms." }),
    })
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      providers: [idpProvider()] as AuthConfig["providers"],
      flows: [extendFlow(oauthFlow, [terms])],
    }
    const first = new AuthClient(config)
    const { res, csrfToken } = await oidcUntilStep(first)
    expect(await res.text()).toContain("I accept the terms")
    const notYet = await first.send("/auth/callback/idp", { form: { csrfToken, step: "terms" } })
    expect(await notYet.text()).toContain("Please accept the terms.")
    const accepted = await first.send("/auth/callback/idp", { form: { csrfToken, step: "terms", accept: "yes" } })
    expect(accepted.headers.get("location")).toBe(`${ORIGIN}/home`)
    const returning = new AuthClient(config)
    const again = await oidcUntilStep(returning)
    expect(again.res.headers.get("location")).toBe(`${ORIGIN}/home`)
  })

  it("TOTP after email sign-in", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      providers: [Nodemailer({ server: smtp.url })],
      flows: [extendFlow(emailFlow, [totpStep({ secretFor: () => ADA_SECRET })])],
    }
    const client = new AuthClient(config)
    const csrfToken = await client.csrf()
    const before = smtp.messages.length
    await client.send("/auth/signin/nodemailer", { form: { csrfToken, email: "ada@example.test" } })
    const message = await smtp.waitForMessage(before + 1)
    const link = new URL(message.links.find((l) => l.includes("/auth/callback/")) as string)
    const atStep = await client.send(`${link.pathname}${link.search}`)
    expect(atStep.status).toBe(200)
    expect(await session(client)).toBeNull()
    const done = await sendCode(client, csrfToken, totpCode(ADA_SECRET), "nodemailer")
    expect(done.status).toBe(303)
    expect(await session(client)).not.toBeNull()
  })
})
