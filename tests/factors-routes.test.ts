/**
 * The second-factor routes (src/runtime/factors/factor-routes.ts) through `Auth()` with real parts
 * (MemoryAdapter, the memory server-state port): listing, TOTP enrolment, passkey rename and delete,
 * recovery codes, and the attacks: signed out, no CSRF token, another user's passkey id, no fresh proof.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import type { AdapterAuthenticator, CompleteAdapter } from "../src/adapters/types.js"
import { de as germanText } from "../src/messages/de.js"
import { en } from "../src/messages/en.js"
import Credentials from "../src/providers/credentials.js"
import WebAuthn from "../src/providers/webauthn.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { stateKey } from "../src/runtime/limits/server-state.js"
import { sessionId } from "../src/runtime/sessions/user-index.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const JSON_ACCEPT = { accept: "application/json" }

interface World {
  adapter: CompleteAdapter
  config: AuthConfig
}

async function world(): Promise<World> {
  const adapter = MemoryAdapter()
  for (const [id, email] of [
    ["u-ada", "ada@example.test"],
    ["u-bob", "bob@example.test"],
  ] as const) {
    await adapter.createUser({ id, email, emailVerified: null })
  }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    serverState: memoryServerState(),
    session: { strategy: "jwt" },
    logger: captureLogger().logger,
    experimental: { enableWebAuthn: true },
    providers: [
      Credentials({ credentials: { username: { label: "Username" } }, authorize: ({ username }) => ({ id: `u-${String(username)}` }) }),
      WebAuthn({}),
    ],
    flows: [extendFlow(credentialsFlow, [totpStep()])],
  }
  return { adapter, config }
}

async function passkey(adapter: CompleteAdapter, userId: string, credentialID: string): Promise<AdapterAuthenticator> {
  await adapter.linkAccount({ userId, type: "webauthn", provider: "webauthn", providerAccountId: credentialID })
  return adapter.createAuthenticator({
    credentialID,
    userId,
    providerAccountId: credentialID,
    counter: 0,
    credentialBackedUp: false,
    credentialPublicKey: "AAAA",
    transports: "internal",
    credentialDeviceType: "singleDevice",
  })
}

async function signIn(w: World, name: string): Promise<{ client: AuthClient; csrfToken: string }> {
  const client = new AuthClient(w.config)
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: name } })
  expect(res.status).toBe(303)
  return { client, csrfToken }
}

const post = (client: AuthClient, action: string, form: Record<string, string>) =>
  client.send(`/auth/${action}`, { form, headers: JSON_ACCEPT })

describe("factor routes", () => {
  let w: World
  afterEach(() => {
    vi.useRealTimers()
  })
  beforeEach(async () => {
    w = await world()
    await passkey(w.adapter, "u-ada", "ada-key-1")
    await passkey(w.adapter, "u-ada", "ada-key-2")
    await passkey(w.adapter, "u-bob", "bob-key-1")
  })

  it("lists the user's own factors only: TOTP off, their passkeys, no recovery codes", async () => {
    const { client } = await signIn(w, "ada")
    const res = await client.send("/auth/factors", { headers: JSON_ACCEPT })
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toContain("no-store")
    const body = (await res.json()) as { totp: boolean; passkeys: { id: string; name: string | null }[]; recoveryCodesLeft: number }
    expect(body.totp).toBe(false)
    expect(body.recoveryCodesLeft).toBe(0)
    expect(body.passkeys.map((p) => p.id).sort()).toEqual(["ada-key-1", "ada-key-2"])
  })

  it("signed out: every route is refused (401), nothing changes", async () => {
    const client = new AuthClient(w.config)
    const csrfToken = await client.csrf()
    expect((await client.send("/auth/factors", { headers: JSON_ACCEPT })).status).toBe(401)
    for (const action of ["passkey-delete", "passkey-rename", "totp-enrol", "totp-remove", "recovery-codes"]) {
      expect((await post(client, action, { csrfToken, id: "ada-key-1", name: "x" })).status, action).toBe(401)
    }
    expect(await w.adapter.getAuthenticator("ada-key-1")).not.toBeNull()
    // a browser asking for the page is sent to sign in and back
    const page = await client.send("/auth/factors")
    expect(page.status).toBe(302)
    expect(page.headers.get("location")).toContain("/auth/signin?callbackUrl=")
  })

  it("without the CSRF token a POST is refused and the passkey stays", async () => {
    const { client } = await signIn(w, "ada")
    const res = await post(client, "passkey-delete", { id: "ada-key-1" })
    expect(res.status).not.toBe(200)
    expect(res.headers.get("location") ?? "").toContain("MissingCSRF")
    expect(await w.adapter.getAuthenticator("ada-key-1")).not.toBeNull()
  })

  it("another user's passkey id cannot be renamed or deleted: it answers as an unknown id", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    const rename = await post(client, "passkey-rename", { csrfToken, id: "bob-key-1", name: "mine now" })
    expect(rename.status).toBe(404)
    expect(((await rename.json()) as { error: string }).error).toBe("FactorNotFound")
    const remove = await post(client, "passkey-delete", { csrfToken, id: "bob-key-1", confirm: "last" })
    expect(remove.status).toBe(404)
    expect(await w.adapter.getAuthenticator("bob-key-1")).not.toBeNull()
    expect(await w.adapter.getAccount("bob-key-1", "webauthn")).not.toBeNull()
    const bob = await signIn(w, "bob")
    const listed = (await (await bob.client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as {
      passkeys: { name: string | null }[]
    }
    expect(listed.passkeys).toEqual([expect.objectContaining({ name: null })])
  })

  it("renames a passkey of one's own; the name is listed, trimmed and bounded", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    expect((await post(client, "passkey-rename", { csrfToken, id: "ada-key-1", name: `  Laptop ${"x".repeat(100)}` })).status).toBe(200)
    expect((await post(client, "passkey-rename", { csrfToken, id: "ada-key-2", name: "   " })).status).toBe(400)
    const listed = (await (await client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as {
      passkeys: { id: string; name: string | null }[]
    }
    const name = listed.passkeys.find((p) => p.id === "ada-key-1")?.name ?? ""
    expect(name.startsWith("Laptop x")).toBe(true)
    expect(name).toHaveLength(64)
  })

  it("without a fresh proof, deleting a passkey, turning TOTP off and new recovery codes are refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    const { client, csrfToken } = await signIn(w, "ada")
    // the sign-in's proof (the session's authTime) is now older than factors.freshFor (300 s)
    vi.setSystemTime(Date.now() + 301_000)
    const remove = await post(client, "passkey-delete", { csrfToken, id: "ada-key-1" })
    expect(remove.status).toBe(403)
    const body = (await remove.json()) as { error: string; reauthUrl: string }
    expect(body.error).toBe("ProofTooOld")
    expect(body.reauthUrl).toBe(`${ORIGIN}/auth/reauth?callbackUrl=${encodeURIComponent(`${ORIGIN}/auth/factors`)}`)
    expect(await w.adapter.getAuthenticator("ada-key-1")).not.toBeNull()
    expect((await post(client, "recovery-codes", { csrfToken })).status).toBe(403)
    // a browser is sent to prove it again and come back
    const page = await client.send("/auth/passkey-delete", { form: { csrfToken, id: "ada-key-1" } })
    expect(page.status).toBe(303)
    expect(page.headers.get("location")).toBe(`${ORIGIN}/auth/reauth?callbackUrl=${encodeURIComponent(`${ORIGIN}/auth/factors`)}`)
  })

  it("with a fresh proof a passkey is deleted (account unlinked, row gone); the last one only with confirm=last", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    expect((await post(client, "passkey-delete", { csrfToken, id: "ada-key-1" })).status).toBe(200)
    expect(await w.adapter.getAuthenticator("ada-key-1")).toBeNull()
    expect(await w.adapter.getAccount("ada-key-1", "webauthn")).toBeNull()
    const last = await post(client, "passkey-delete", { csrfToken, id: "ada-key-2" })
    expect(last.status).toBe(409)
    expect(((await last.json()) as { error: string }).error).toBe("LastSignInMethod")
    expect(await w.adapter.getAuthenticator("ada-key-2")).not.toBeNull()
    expect((await post(client, "passkey-delete", { csrfToken, id: "ada-key-2", confirm: "last" })).status).toBe(200)
    expect(await w.adapter.getAuthenticator("ada-key-2")).toBeNull()
  })

  it("enrols TOTP only after a correct code, gives recovery codes, asks for TOTP at the next sign-in, turns off with a fresh proof", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    expect((await post(client, "totp-confirm", { csrfToken, code: "123456" })).status).toBe(409)
    const enrol = (await (await post(client, "totp-enrol", { csrfToken })).json()) as { secret: string; uri: string; qrSvg: string }
    expect(enrol.uri).toContain(`secret=${enrol.secret}`)
    expect(enrol.qrSvg).toContain("<svg")
    let listed = (await (await client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as {
      totp: boolean
      recoveryCodesLeft: number
    }
    expect(listed.totp).toBe(false)
    const wrong = String((Number(totpCode(enrol.secret)) + 500_000) % 1_000_000).padStart(6, "0")
    expect((await post(client, "totp-confirm", { csrfToken, code: wrong })).status).toBe(400)
    const on = await post(client, "totp-confirm", { csrfToken, code: totpCode(enrol.secret) })
    expect(on.status).toBe(200)
    const { recoveryCodes } = (await on.json()) as { recoveryCodes: string[] }
    expect(recoveryCodes).toHaveLength(10)
    listed = (await (await client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as { totp: boolean; recoveryCodesLeft: number }
    expect(listed).toMatchObject({ totp: true, recoveryCodesLeft: 10 })
    expect((await post(client, "totp-enrol", { csrfToken })).status).toBe(409)

    const again = new AuthClient(w.config)
    const againCsrf = await again.csrf()
    const step = await again.send("/auth/callback/credentials", { form: { csrfToken: againCsrf, username: "ada" } })
    expect(step.status).toBe(200)
    expect(await step.text()).toContain('name="code"')

    expect((await post(client, "totp-remove", { csrfToken })).status).toBe(200)
    listed = (await (await client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as { totp: boolean; recoveryCodesLeft: number }
    expect(listed.totp).toBe(false)
  })

  it("the 21st factor POST from one client within a minute is refused with 429 (accountClient), another client is not", async () => {
    w.config = { ...w.config, rateLimit: { enabled: true } }
    const { client, csrfToken } = await signIn(w, "ada")
    const rename = (ip: string) =>
      client.send("/auth/passkey-rename", { form: { csrfToken, id: "bob-key-1", name: "x" }, headers: JSON_ACCEPT, clientIp: ip })
    for (let i = 0; i < 20; i++) expect((await rename("198.51.100.9")).status).toBe(404)
    const refused = await rename("198.51.100.9")
    expect(refused.status).toBe(429)
    expect(refused.headers.get("ratelimit-policy")).toBe('"accountClient";q=20;w=60')
    expect(await refused.json()).toMatchObject({ error: "RateLimited" })
    expect((await rename("198.51.100.10")).status).toBe(404)
  })

  it("in German from Accept-Language: the list, the enrolment page and the codes, no English text of the factor pages left", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    const de = { "accept-language": "de-DE,de;q=0.9,en;q=0.5" }
    await post(client, "passkey-rename", { csrfToken, id: "ada-key-1", name: "Laptop" })
    const german: Readonly<Record<string, string>> = germanText
    const english = Object.entries(en)
      .filter(([key, value]) => key.startsWith("factors.") && value !== german[key] && !value.includes("{"))
      .map(([, value]) => value)
    const list = await client.send("/auth/factors?error=LastSignInMethod&id=ada-key-1", { headers: de })
    expect(list.headers.get("vary")).toContain("Accept-Language")
    const listPage = await list.text()
    expect(listPage).toContain('<html lang="de"')
    expect(listPage).toContain("Anmeldung und Sicherheit")
    expect(listPage).toContain("Noch 0 Wiederherstellungscodes")
    const enrol = await (await client.send("/auth/totp-enrol", { form: { csrfToken }, headers: de })).text()
    expect(enrol).toContain("Authenticator-App einrichten")
    for (const text of english) {
      expect(listPage, text).not.toContain(text)
      expect(enrol, text).not.toContain(text)
    }
    const refused = await client.send("/auth/passkey-rename", {
      form: { csrfToken, id: "bob-key-1", name: "x" },
      headers: { ...de, ...JSON_ACCEPT },
    })
    expect(await refused.json()).toMatchObject({ error: "FactorNotFound", message: germanText["factors.refused.FactorNotFound"] })
  })

  it("the page: a themed HTML list with the user's passkeys and forms carrying the CSRF token", async () => {
    const { client, csrfToken } = await signIn(w, "ada")
    await post(client, "passkey-rename", { csrfToken, id: "ada-key-1", name: "<b>Phone</b>" })
    const res = await client.send("/auth/factors")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/html")
    const page = await res.text()
    expect(page).toContain("&lt;b&gt;Phone&lt;/b&gt;")
    expect(page).not.toContain("bob-key-1")
    expect(page).toContain('id="totp-enrol"')
    expect(page).toContain(`value="${csrfToken}"`)
  })
})

describe("factor routes with database sessions", () => {
  it("the fresh proof is the session's recorded authTime: none refuses the delete, a recent one allows it; another user's passkey stays unknown", async () => {
    const w = await world()
    await passkey(w.adapter, "u-ada", "ada-key-1")
    await passkey(w.adapter, "u-ada", "ada-key-2")
    await passkey(w.adapter, "u-bob", "bob-key-1")
    const serverState = memoryServerState()
    const config: AuthConfig = { ...w.config, serverState, session: { strategy: "database" } }
    const sessionToken = "ada-database-session-token"
    await w.adapter.createSession({ sessionToken, userId: "u-ada", expires: new Date(Date.now() + 3600_000) })
    const client = new AuthClient(config)
    client.jar.cookies.set("authjs.session-token", sessionToken)
    const csrfToken = await client.csrf()

    const listed = (await (await client.send("/auth/factors", { headers: JSON_ACCEPT })).json()) as { passkeys: { id: string }[] }
    expect(listed.passkeys.map((p) => p.id).sort()).toEqual(["ada-key-1", "ada-key-2"])
    expect((await post(client, "passkey-delete", { csrfToken, id: "ada-key-1" })).status).toBe(403)
    expect(await w.adapter.getAuthenticator("ada-key-1")).not.toBeNull()

    // the proof a sign-in or re-authentication records for this session (src/runtime/sessions/auth-time.ts)
    await serverState.set(stateKey("authtime", sessionId(sessionToken)), String(Math.floor(Date.now() / 1000)), 3600_000)
    expect((await post(client, "passkey-delete", { csrfToken, id: "bob-key-1" })).status).toBe(404)
    expect((await post(client, "passkey-delete", { csrfToken, id: "ada-key-1" })).status).toBe(200)
    expect(await w.adapter.getAuthenticator("ada-key-1")).toBeNull()
    expect(await w.adapter.getAuthenticator("bob-key-1")).not.toBeNull()
  })
})
