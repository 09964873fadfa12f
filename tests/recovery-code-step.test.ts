/**
 * Recovery codes at the TOTP step, through `Auth()`: the TOTP page offers a recovery-code field; a code
 * signs in once and fires `events.recoveryCodeUsed` with the codes left; a used, wrong or voided code
 * stays on the page with a message; the TOTP code still works; wrong recovery codes and wrong TOTP codes
 * share the step's attempt cap.
 */
import { describe, expect, it } from "vitest"
import { type AuthConfig, credentialsFlow, extendFlow } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { issueRecoveryCodes, recoveryCodeStep, recoveryCodesLeft, redeemRecoveryCode } from "../src/steps/recovery-codes.js"
import { totpCode, totpStep } from "../src/steps/totp.js"
import type { User } from "../src/types.js"
import { users } from "./fixtures/credentials-with-totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const ADA_SECRET = users.get("ada")?.totpSecret as string
const ACCESS_DENIED = `${ORIGIN}/auth/error?error=AccessDenied`

function app() {
  const used: { user: User; remaining: number }[] = []
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: ({ username, password }) => {
          const user = users.get(String(username))
          return user && user.password === password ? { id: user.id, name: user.name } : null
        },
      }),
    ],
    flows: [
      extendFlow(credentialsFlow, [
        recoveryCodeStep(totpStep({ secretFor: (user) => [...users.values()].find((u) => u.id === user.id)?.totpSecret })),
      ]),
    ],
    events: { recoveryCodeUsed: (message) => void used.push(message) },
  }
  return { config, used, log }
}

/** A new browser that enters Ada's password: it rests on the TOTP page. */
async function password(config: AuthConfig) {
  const client = new AuthClient(config)
  const csrfToken = await client.csrf()
  const page = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
  expect(page.status).toBe(200)
  const send = (form: Record<string, string>) => client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", ...form } })
  return {
    client,
    page,
    recovery: (recoveryCode: string) => send({ code: "", use: "recovery-code", recoveryCode }),
    totp: (code: string) => send({ code }),
  }
}

const signedIn = (client: AuthClient) => client.jar.get("authjs.session-token") !== undefined

describe("recovery codes at the TOTP step", () => {
  it("the TOTP page offers a recovery code: a field named recoveryCode with its own button that skips the 6-digit field's check", async () => {
    const { config } = app()
    const { page } = await password(config)
    const html = await page.text()
    expect(html).toContain('name="code"')
    expect(html).toContain("<summary>Lost your device? Use a recovery code</summary>")
    expect(html).toMatch(/<input id="recovery-code" name="recoveryCode"/)
    expect(html).toMatch(/<button type="submit" name="use" value="recovery-code" formnovalidate>/)
  })

  it("in German from Accept-Language: the section and the refusal, with no English left of them", async () => {
    const { config } = app()
    const client = new AuthClient(config)
    const csrfToken = await client.csrf()
    const german = { "accept-language": "de-DE,de;q=0.9" }
    const form = { csrfToken, username: "ada", password: "correct horse" }
    const page = await (await client.send("/auth/callback/credentials", { form, headers: german })).text()
    expect(page).toContain("<summary>Gerät verloren? Einen Wiederherstellungscode verwenden</summary>")
    expect(page).toContain(">Wiederherstellungscode verwenden</button>")
    expect(page).not.toMatch(/Lost your device|recovery codes you saved|Use recovery code/)
    const refused = await client.send("/auth/callback/credentials", {
      form: { csrfToken, step: "totp", code: "", recoveryCode: "00000-00000" },
      headers: german,
    })
    const html = await refused.text()
    expect(html).toContain("Dieser Wiederherstellungscode ist ungültig oder wurde bereits verwendet.")
    expect(html).not.toContain("That recovery code")
  })

  it("a recovery code signs in once, fires recoveryCodeUsed with 9 left, and is refused the next time", async () => {
    const { config, used } = app()
    const codes = await issueRecoveryCodes(config, "u-ada")
    const first = await password(config)
    const done = await first.recovery(codes[0] as string)
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(ORIGIN)
    expect(signedIn(first.client)).toBe(true)
    expect(used).toHaveLength(1)
    expect(used[0]?.remaining).toBe(9)
    expect(used[0]?.user).toMatchObject({ id: "u-ada", name: "Ada" })

    const again = await password(config)
    const refused = await again.recovery(codes[0] as string)
    expect(refused.status).toBe(200)
    expect(await refused.text()).toContain("That recovery code is not valid or was already used.")
    expect(signedIn(again.client)).toBe(false)
    expect(used).toHaveLength(1)
    expect(await recoveryCodesLeft(config, "u-ada")).toBe(9)
  })

  it("the TOTP code still signs in, and does not spend a recovery code", async () => {
    const { config, used } = app()
    await issueRecoveryCodes(config, "u-ada")
    const { client, totp } = await password(config)
    expect((await totp(totpCode(ADA_SECRET))).headers.get("location")).toBe(ORIGIN)
    expect(signedIn(client)).toBe(true)
    expect(used).toEqual([])
    expect(await recoveryCodesLeft(config, "u-ada")).toBe(10)
  })

  it("new codes void the old set: an old code is refused at the step, a new one signs in", async () => {
    const { config } = app()
    const old = await issueRecoveryCodes(config, "u-ada")
    const fresh = await issueRecoveryCodes(config, "u-ada")
    const attempt = await password(config)
    expect((await attempt.recovery(old[1] as string)).status).toBe(200)
    expect((await attempt.recovery(fresh[1] as string)).headers.get("location")).toBe(ORIGIN)
    expect(signedIn(attempt.client)).toBe(true)
  })

  it("wrong recovery codes and wrong TOTP codes share the step's cap of 5 per user: then the right recovery code is refused", async () => {
    const { config, log } = app()
    const codes = await issueRecoveryCodes(config, "u-ada")
    const first = await password(config)
    for (let i = 0; i < 3; i++) expect((await first.recovery("00000-00000")).status).toBe(200)
    const second = await password(config)
    expect((await second.totp("000000")).status).toBe(200)
    expect((await second.recovery("zzzzz-zzzzz")).headers.get("location")).toBe(ACCESS_DENIED)

    const third = await password(config)
    expect((await third.recovery(codes[0] as string)).headers.get("location")).toBe(ACCESS_DENIED)
    expect(signedIn(third.client)).toBe(false)
    expect(log.errors.at(-1)?.message).toBe("The totp step refused attempt 6 (at most 5).")
    // the refused attempt did not spend the code
    expect(await recoveryCodesLeft(config, "u-ada")).toBe(10)
  })

  it("a user without codes can answer with TOTP only; a recovery code of another user does nothing", async () => {
    const { config } = app()
    const bobs = await issueRecoveryCodes(config, "u-bob")
    const attempt = await password(config)
    const refused = await attempt.recovery(bobs[0] as string)
    expect(refused.status).toBe(200)
    expect(signedIn(attempt.client)).toBe(false)
    expect(await redeemRecoveryCode(config, "u-bob", bobs[0] as string)).toBe(true)
  })
})
