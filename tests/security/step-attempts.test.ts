/**
 * Attack class: TOTP brute force. A step's wrong answers are counted per user on the
 * server (`countAttempt` in src/runtime/engine/extend-flow.ts, the port's `count`), within `attemptWindow`, so
 * neither entering the password again (a new flow) nor replaying a flow cookie starts the count again:
 * the attempt after the last allowed one is refused even with the right code.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "../../src/index.js"
import { memoryServerState } from "../../src/runtime/limits/server-state-memory.js"
import { totpCode } from "../../src/steps/totp.js"
import { appConfig, users } from "../fixtures/credentials-with-totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "../helpers.js"

const ADA_SECRET = users.get("ada")?.totpSecret as string
const ACCESS_DENIED = `${ORIGIN}/auth/error?error=AccessDenied`

/**
 * The server-state ports the count is kept in: the default in-memory one (its verbs answered at once) and
 * a copy of one, whose verbs the runtime awaits as it awaits any other port's.
 */
const ports: { name: string; port: () => Partial<AuthConfig> }[] = [
  { name: "in-memory port", port: () => ({}) },
  { name: "a port answering with promises", port: () => ({ serverState: { ...memoryServerState() } }) },
]

function app(port: Partial<AuthConfig>) {
  const log = captureLogger()
  const config: AuthConfig = { ...appConfig(SECRET), trustHost: true, logger: log.logger, ...port }
  return { config, log }
}

/** A new browser that enters Ada's password: it rests on the TOTP page. */
async function password(config: AuthConfig) {
  const client = new AuthClient(config)
  const csrfToken = await client.csrf()
  const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
  expect(res.status).toBe(200)
  return { client, code: (code: string) => client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code } }) }
}

afterEach(() => {
  vi.useRealTimers()
})

describe.each(ports)("TOTP brute force: the attempt cap is per user on the server ($name)", ({ port }) => {
  it("after 5 wrong codes, entering the password again does not reset the count: the right code is refused", async () => {
    const { config, log } = app(port())
    const first = await password(config)
    for (let i = 0; i < 4; i++) expect((await first.code("000000")).status).toBe(200)
    expect((await first.code("000000")).headers.get("location")).toBe(ACCESS_DENIED)

    const again = await password(config)
    const refused = await again.code(totpCode(ADA_SECRET))
    expect(refused.headers.get("location")).toBe(ACCESS_DENIED)
    expect(again.client.jar.get("authjs.session-token")).toBeUndefined()
    expect(log.errors.at(-1)?.message).toBe("The totp step refused attempt 6 (at most 5).")
  })

  it("wrong codes spread over several sign-ins add up: 3 in one, the 2nd of the next fails the flow", async () => {
    const { config } = app(port())
    const first = await password(config)
    for (let i = 0; i < 3; i++) expect((await first.code("000000")).status).toBe(200)
    const second = await password(config)
    expect((await second.code("000000")).status).toBe(200)
    expect((await second.code("000000")).headers.get("location")).toBe(ACCESS_DENIED)
  })

  it("the count ends with its window (15 minutes): then the right code signs in, and a success starts it again", async () => {
    const { config } = app(port())
    const first = await password(config)
    for (let i = 0; i < 5; i++) await first.code("000000")
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 15 * 60 * 1000 + 1000 })
    const later = await password(config)
    expect((await later.code(totpCode(ADA_SECRET))).headers.get("location")).toBe(ORIGIN)
    expect(later.client.jar.get("authjs.session-token")).toBeTruthy()

    // after a success the user has all 5 attempts again
    vi.setSystemTime(Date.now() + 60_000)
    const next = await password(config)
    for (let i = 0; i < 4; i++) expect((await next.code("000000")).status).toBe(200)
    expect((await next.code(totpCode(ADA_SECRET))).headers.get("location")).toBe(ORIGIN)
  })
})
