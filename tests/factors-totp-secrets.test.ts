/**
 * The TOTP secret authchart keeps for a user (src/runtime/factors/totp-secrets.ts): sealed in the
 * server-state port, readable only for its own user and with the configured secrets, and what
 * `totpStep()` asks when the app gives no `secretFor`.
 */
import { describe, expect, it } from "vitest"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import {
  activeTotpSecret,
  pendingTotpSecret,
  removeTotpSecret,
  setActiveTotpSecret,
  setPendingTotpSecret,
} from "../src/runtime/factors/totp-secrets.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import { stateKey } from "../src/runtime/limits/server-state.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

describe("activeTotpSecret", () => {
  it("is null until set, the secret once set, null again once removed", async () => {
    const store = { serverState: memoryServerState(), secrets: [SECRET] }
    expect(await activeTotpSecret(store, "u-1")).toBeNull()
    await setActiveTotpSecret(store, "u-1", TOTP_SECRET)
    expect(await activeTotpSecret(store, "u-1")).toBe(TOTP_SECRET)
    expect(await activeTotpSecret(store, "u-2")).toBeNull()
    await removeTotpSecret(store, "u-1")
    expect(await activeTotpSecret(store, "u-1")).toBeNull()
  })

  it("keeps it sealed: the port holds no secret, another user's key and another app secret open nothing", async () => {
    const serverState = memoryServerState()
    const store = { serverState, secrets: [SECRET] }
    await setActiveTotpSecret(store, "u-1", TOTP_SECRET)
    const raw = (await serverState.get(stateKey("factor", "u-1", "totp"))) ?? ""
    expect(raw.split(".")).toHaveLength(5)
    expect(raw).not.toContain(TOTP_SECRET)
    await serverState.set(stateKey("factor", "u-2", "totp"), raw, 60_000)
    expect(await activeTotpSecret(store, "u-2")).toBeNull()
    expect(await activeTotpSecret({ serverState, secrets: ["another-secret-that-is-long-enough-000"] }, "u-1")).toBeNull()
    // an old secret still opens it after rotation
    expect(await activeTotpSecret({ serverState, secrets: ["a-newer-secret-that-is-long-enough-001", SECRET] }, "u-1")).toBe(TOTP_SECRET)
  })

  it("a pending enrolment is apart from the active secret, and activation drops it", async () => {
    const store = { serverState: memoryServerState(), secrets: [SECRET] }
    await setPendingTotpSecret(store, "u-1", TOTP_SECRET)
    expect(await pendingTotpSecret(store, "u-1")).toBe(TOTP_SECRET)
    expect(await activeTotpSecret(store, "u-1")).toBeNull()
    await setActiveTotpSecret(store, "u-1", TOTP_SECRET)
    expect(await pendingTotpSecret(store, "u-1")).toBeNull()
  })
})

describe("totpStep() without secretFor", () => {
  const serverState = memoryServerState()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    serverState,
    logger: captureLogger().logger,
    providers: [
      Credentials({
        credentials: { username: { label: "Username" } },
        authorize: ({ username }) => ({ id: `u-${String(username)}`, name: String(username) }),
      }),
    ],
    flows: [extendFlow(credentialsFlow, [totpStep()])],
  }

  it("asks a user with a kept secret for the code and signs them in with it; a user without one is not asked", async () => {
    await setActiveTotpSecret({ serverState, secrets: [SECRET] }, "u-ada", TOTP_SECRET)
    const ada = new AuthClient(config)
    const csrfToken = await ada.csrf()
    const page = await ada.send("/auth/callback/credentials", { form: { csrfToken, username: "ada" } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('name="code"')
    const wrong = await ada.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: "000000" } })
    expect(await wrong.text()).toContain("That code is not valid.")
    const right = await ada.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: totpCode(TOTP_SECRET) } })
    expect(right.status).toBe(303)
    expect(right.headers.get("location")).toBe(ORIGIN)

    const bob = new AuthClient(config)
    const bobCsrf = await bob.csrf()
    const signedIn = await bob.send("/auth/callback/credentials", { form: { csrfToken: bobCsrf, username: "bob" } })
    expect(signedIn.status).toBe(303)
    expect(((await (await bob.send("/auth/session")).json()) as { user: { name: string } }).user.name).toBe("bob")
  })
})
