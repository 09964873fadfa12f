/**
 * A step's functions may answer at once or with a promise (`when`, `run`, `enter`, `submit`, and the TOTP
 * step's `secretFor` and its used-code claim, through the in-memory port's own verbs or any other port):
 * the flow comes to the same outcome either way.
 */
import { describe, expect, it, vi } from "vitest"
import { type AuthConfig, credentialsFlow, defineStep, escapeHtml, extendFlow } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { keptRedirects } from "../src/runtime/http/callback-url.js"
import { memoryServerState } from "../src/runtime/limits/server-state-memory.js"
import type { StepDefinition } from "../src/runtime/engine/extend-flow.js"
import { memoryUsedCodes, totpCode, totpStep } from "../src/steps/totp.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"

const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const answers = [
  ["at once", <T>(value: T) => value],
  ["later", <T>(value: T) => Promise.resolve(value)],
] as const

function config(steps: StepDefinition[], extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: captureLogger().logger,
    providers: [Credentials({ credentials: { username: { label: "Username" } }, authorize: () => ({ id: "u-7", name: "Pat" }) })],
    flows: [extendFlow(credentialsFlow, steps)],
    ...extra,
  }
}

async function signIn(client: AuthClient) {
  const csrfToken = await client.csrf()
  return { csrfToken, res: await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat" } }) }
}

const session = async (client: AuthClient) => (await (await client.send("/auth/session")).json()) as { user: { name: string } } | null

describe.each(answers)("a step whose functions answer %s", (_, answer) => {
  it("run: true signs in, false fails the flow with AccessDenied and no session", async () => {
    for (const passes of [true, false]) {
      const client = new AuthClient(config([defineStep({ id: "check", run: () => answer(passes) })]))
      const { res } = await signIn(client)
      expect(res.status).toBe(303)
      if (passes) expect((await session(client))?.user.name).toBe("Pat")
      else {
        expect(res.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
        expect(await session(client)).toBeNull()
      }
    }
  })

  it("when: false skips the step (a run that would refuse never runs), true runs it", async () => {
    for (const applies of [false, true]) {
      const client = new AuthClient(config([defineStep({ id: "check", when: () => answer(applies), run: () => answer(false) })]))
      const { res } = await signIn(client)
      expect(res.headers.get("location")).toBe(applies ? `${ORIGIN}/auth/error?error=AccessDenied` : ORIGIN)
    }
  })

  it("enter: its data reaches the page and submit; submit's retry keeps the page, its pass signs in", async () => {
    const step = defineStep({
      id: "pin",
      enter: () => answer({ hint: "the last two digits are 42" }),
      page: ({ data }) => ({ fields: `<p>${String(data.hint)}</p><input name="pin">` }),
      submit: ({ params, data }) =>
        answer(params.pin === "1242" && data.hint !== undefined ? true : { result: "retry" as const, message: "Wrong PIN." }),
    })
    const client = new AuthClient(config([step]))
    const { csrfToken, res } = await signIn(client)
    expect(await res.text()).toContain("<p>the last two digits are 42</p>")
    const wrong = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "pin", pin: "0000" } })
    const page = await wrong.text()
    expect(page).toContain("Wrong PIN.")
    expect(page).toContain("<p>the last two digits are 42</p>")
    const right = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "pin", pin: "1242" } })
    expect(right.status).toBe(303)
    expect((await session(client))?.user.name).toBe("Pat")
  })

  it("TOTP: a user without a secret skips it; the right code signs in once, its replay is refused (the in-memory port's own verbs, or a copy of it)", async () => {
    for (const port of ["own", "copy"] as const) {
      for (const secret of [null, TOTP_SECRET]) {
        const memory = memoryServerState()
        const serverState = port === "own" ? memory : { ...memory }
        const steps = [totpStep({ secretFor: () => answer(secret) })]
        const first = new AuthClient(config(steps, { serverState }))
        const { csrfToken, res } = await signIn(first)
        if (!secret) {
          expect(res.status).toBe(303)
          expect((await session(first))?.user.name).toBe("Pat")
          continue
        }
        expect(await res.text()).toContain('name="code"')
        const wrong = await first.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code: "00000x" } })
        expect(await wrong.text()).toContain("That code is not valid")
        const code = totpCode(secret)
        const done = await first.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code } })
        expect(done.status).toBe(303)
        expect((await session(first))?.user.name).toBe("Pat")
        const second = new AuthClient(config(steps, { serverState }))
        const again = await signIn(second)
        const replay = await second.send("/auth/callback/credentials", { form: { csrfToken: again.csrfToken, step: "totp", code } })
        expect(await replay.text()).toContain("That code was already used")
        expect(await session(second)).toBeNull()
      }
    }
  })

  it("TOTP with the deprecated usedCodes registry: the right code signs in once, its replay is refused", async () => {
    const used = memoryUsedCodes()
    const usedCodes = { claim: (user: string, step: number) => answer(used.claim(user, step) as boolean) }
    const steps = [totpStep({ secretFor: () => answer(TOTP_SECRET), usedCodes })]
    const code = totpCode(TOTP_SECRET)
    for (const expected of ["signed in", "already used"]) {
      const client = new AuthClient(config(steps))
      const { csrfToken } = await signIn(client)
      const sent = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code } })
      if (expected === "signed in") expect(sent.status).toBe(303)
      else expect(await sent.text()).toContain("That code was already used")
    }
  })
})

describe("a step resumed on another origin of the same app", () => {
  it("lands on that origin, not on the callback URL the flow kept from the first (the kept URL must be on the request's origin)", async () => {
    const appConfig = config([totpStep({ secretFor: () => TOTP_SECRET })])
    const first = new AuthClient(appConfig, "http://a.test")
    const csrfToken = await first.csrf()
    const rests = await first.send("/auth/callback/credentials", { form: { csrfToken, username: "pat", callbackUrl: "/home" } })
    expect(await rests.text()).toContain('name="code"')
    const code = { csrfToken, step: "totp", code: totpCode(TOTP_SECRET) }
    const other = new AuthClient(appConfig, "http://b.test")
    for (const [name, value] of first.jar.cookies) other.jar.cookies.set(name, value)
    const done = await other.send("/auth/callback/credentials", { form: code })
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe("http://b.test")
    // on its own origin the kept URL is where it lands
    const again = new AuthClient(appConfig, "http://a.test")
    const token = await again.csrf()
    await again.send("/auth/callback/credentials", { form: { csrfToken: token, username: "pat", callbackUrl: "/home" } })
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 30_000 })
    try {
      const landed = await again.send("/auth/callback/credentials", { form: { ...code, csrfToken: token, code: totpCode(TOTP_SECRET) } })
      expect(landed.headers.get("location")).toBe("http://a.test/home")
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("a step page's cancel link", () => {
  it("names each flow's own callback URL, as URLSearchParams writes it, on every page", async () => {
    const appConfig = config([totpStep({ secretFor: () => TOTP_SECRET })])
    for (const path of ["/a?x=1&y=two words", "/b~c", "/a?x=1&y=two words", "/b~c"]) {
      const client = new AuthClient(appConfig)
      const csrfToken = await client.csrf()
      const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat", callbackUrl: path } })
      const query = new URLSearchParams({ callbackUrl: new URL(path, ORIGIN).href }).toString()
      expect(await res.text()).toContain(`<a href="${escapeHtml(`${ORIGIN}/auth/signin?${query}`)}">Cancel and start over</a>`)
    }
  })
})

describe("the callback URL a sign-in names, checked by the built-in redirect rule (its answers kept per origin and URL)", () => {
  const cases: [origin: string, callbackUrl: string, lands: string][] = [
    ["http://a.test", "/home", "http://a.test/home"],
    ["http://b.test", "/home", "http://b.test/home"],
    ["http://a.test", "http://a.test/x?y=1", "http://a.test/x?y=1"],
    ["http://b.test", "http://a.test/x?y=1", "http://b.test"],
    ["http://a.test", "https://evil.example/", "http://a.test"],
    ["http://a.test", "javascript:alert(1)", "http://a.test"],
    ["http://b.test", "/home", "http://b.test/home"],
    ["http://a.test", "/home", "http://a.test/home"],
  ]
  it.each(cases)("on %s, %j lands on %s, the first time and after", async (origin, callbackUrl, lands) => {
    for (let i = 0; i < 2; i++) {
      const client = new AuthClient(config([]), origin)
      const csrfToken = await client.csrf()
      const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat", callbackUrl } })
      expect(res.headers.get("location")).toBe(lands)
    }
  })

  it("keeps a bounded number of answers, none for a long URL", async () => {
    const appConfig = config([])
    for (let i = 0; i < 300; i++) {
      const client = new AuthClient(appConfig)
      const csrfToken = await client.csrf()
      const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat", callbackUrl: `/p${i}` } })
      expect(res.headers.get("location")).toBe(`${ORIGIN}/p${i}`)
      expect(keptRedirects()).toBeLessThanOrEqual(256)
    }
    const before = keptRedirects()
    const client = new AuthClient(appConfig)
    const csrfToken = await client.csrf()
    const long = `/${"x".repeat(3000)}`
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken, username: "pat", callbackUrl: long } })
    expect(res.headers.get("location")).toBe(`${ORIGIN}${long}`)
    expect(keptRedirects()).toBe(before)
  })
})
