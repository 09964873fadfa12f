/**
 * A flow of one's own, as a newcomer writes it with the kit (`authchart/flow`): a text-message code.
 * The provider is a `FormProviderConfig` (its fields drawn by the sign-in page, no `authorize`); the flow
 * rests on its code page, and a GET reload of that page shows it again whatever the machine would do
 * with the reload's event, and whether or not the flow declares a reload row.
 */
import { createHmac, randomInt, timingSafeEqual } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { assign, setup } from "xstate"
import { type AuthConfig, CredentialsSignin, type FormProviderConfig } from "../src/index.js"
import {
  AWAITING_INPUT,
  type FlowPageProps,
  type FlowRoute,
  type Identity,
  type Reply,
  declareEffect,
  defineFlow,
  effect,
  flowBase,
  flowTypes,
  renderStepPage,
  signInTail,
  stableUserId,
  tailActions,
  tailActors,
  tailGuards,
} from "../src/flow/index.js"
import SmsCode from "./fixtures/sms-flow.js"
import { AuthClient, ORIGIN, SECRET, captureLogger } from "./helpers.js"
import { repoRoot } from "./support/packed.js"

type Pending = { phone: string; hash: string }

class BadPhone extends CredentialsSignin {
  override code = "bad_phone"
}

/** The text messages "sent", newest last. */
const outbox: { phone: string; code: string }[] = []

const codeHash = (secret: string, phone: string, code: string) => createHmac("sha256", secret).update(phone).update(code).digest("hex")
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

const sendCode = effect<Pending, { params: Record<string, unknown> }>(async (services, { params }) => {
  const phone = typeof params.phone === "string" ? params.phone.replace(/\s/g, "") : ""
  if (!/^\+\d{8,15}$/.test(phone)) throw new BadPhone("Not a phone number.")
  const code = String(randomInt(1_000_000)).padStart(6, "0")
  outbox.push({ phone, code })
  return { phone, hash: codeHash(services.secrets[0], phone, code) }
})

const checkCode = effect<Identity, { pending: Pending | null; code: unknown }>(async (services, { pending, code }) => {
  const typed = typeof code === "string" ? code : ""
  if (!pending || !sameHash(codeHash(services.secrets[0], pending.phone, typed), pending.hash)) {
    throw new CredentialsSignin("Wrong code.")
  }
  const id = stableUserId("sms", pending.phone)
  return {
    user: { id, name: pending.phone },
    account: { providerAccountId: pending.phone, userId: id, type: "credentials", provider: "sms" },
  }
})

const codePage = (): Reply => ({ type: "page", page: "code", data: {} })
const page = (props: FlowPageProps) => renderStepPage(props, { title: "Enter the code", fields: `<input name="code" inputmode="numeric">` })

/**
 * The flow; `reload` is the GET row it declares (none: `defineFlow` adds one) and `handles` whether its
 * code state takes that row's event, here as a newcomer might: as an answer to check.
 */
function smsFlow(options: { reload?: FlowRoute; handles?: string }) {
  const machine = setup({
    types: flowTypes<Pending>(),
    actors: {
      ...tailActors,
      sendCode: declareEffect<Pending, { params: Record<string, unknown> }>("sendCode"),
      checkCode: declareEffect<Identity, { pending: Pending | null; code: unknown }>("checkCode"),
    },
    guards: tailGuards,
    actions: tailActions,
  }).createMachine({
    id: "sms",
    ...flowBase,
    states: {
      idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "sending" } },
      sending: {
        invoke: {
          src: "sendCode",
          input: ({ event }) => ({ params: event.params }),
          onDone: { target: "code", actions: assign({ pending: ({ event }) => event.output, reply: codePage() }) },
          onError: { target: "failed", actions: "fail" },
        },
      },
      code: { tags: [AWAITING_INPUT], on: { CODE: "checking", ...(options.handles ? { [options.handles]: "checking" } : {}) } },
      checking: {
        invoke: {
          src: "checkCode",
          input: ({ context, event }) => ({ pending: context.pending, code: event.params.code }),
          onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output }) },
          onError: { target: "failed", actions: "fail" },
        },
      },
      ...signInTail,
    },
  })
  return defineFlow({
    id: "sms",
    machine,
    routes: [
      { method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["phone"] },
      { method: "POST", action: "callback", step: "code", event: "CODE", csrf: true, params: ["code"] },
      ...(options.reload ? [options.reload] : []),
    ],
    actors: { sendCode, checkCode },
    pages: { code: page },
  })
}

function app(options: { reload?: FlowRoute; handles?: string }) {
  const log = captureLogger()
  const sms: FormProviderConfig = {
    id: "sms",
    name: "Text message",
    type: "credentials",
    credentials: { phone: { label: "Phone number", type: "tel" } },
    flow: smsFlow(options),
  }
  const config: AuthConfig = { secret: SECRET, trustHost: true, logger: log.logger, providers: [sms] }
  return { client: new AuthClient(config), log }
}

async function requestCode(client: AuthClient) {
  const res = await client.send("/auth/callback/sms", { form: { csrfToken: await client.csrf(), phone: "+44 7700 900123" } })
  expect(res.status).toBe(200)
  expect(await res.text()).toContain("<h1>Enter the code</h1>")
  const sent = outbox.at(-1)
  expect(sent?.phone).toBe("+447700900123")
  return sent?.code ?? ""
}

async function enterCode(client: AuthClient, code: string) {
  return client.send("/auth/callback/sms", { form: { csrfToken: await client.csrf(), step: "code", code } })
}

describe("a provider of a flow of one's own with form fields (FormProviderConfig)", () => {
  it("starts without an authorize; the sign-in page draws its field, posting to its callback", async () => {
    const { client, log } = app({})
    const page = await (await client.send("/auth/signin")).text()
    expect(page).toContain(`action="${ORIGIN}/auth/callback/sms"`)
    expect(page).toContain('name="phone"')
    expect(log.errors).toEqual([])
  })

  it("signs in with the code; an effect's sign-in error reaches the sign-in page with its code", async () => {
    const { client } = app({})
    const done = await enterCode(client, await requestCode(client))
    expect(done.status).toBe(303)
    const session = (await (await client.send("/auth/session")).json()) as { user?: { name?: string } }
    expect(session.user?.name).toBe("+447700900123")

    const { client: other } = app({})
    const bad = await other.send("/auth/callback/sms", { form: { csrfToken: await other.csrf(), phone: "nope" } })
    expect(bad.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=bad_phone`)
  })
})

describe("a GET reload of the page a flow of one's own rests on shows the page again", () => {
  const cases: [string, { reload?: FlowRoute; handles?: string }][] = [
    ["no reload row declared (defineFlow adds one)", {}],
    ["a reload row the machine does not take", { reload: { method: "GET", action: "callback", event: "SHOW", params: [] } }],
    [
      "a reload row whose event the machine takes as an answer",
      { reload: { method: "GET", action: "callback", event: "SHOW", params: [] }, handles: "SHOW" },
    ],
    ["a reload row with the answer's own event", { reload: { method: "GET", action: "callback", event: "CODE", params: [] } }],
  ]
  it.each(cases)("%s", async (_, options) => {
    const { client } = app(options)
    const code = await requestCode(client)
    for (let i = 0; i < 2; i++) {
      const reloaded = await client.send("/auth/callback/sms")
      expect(reloaded.status).toBe(200)
      const html = await reloaded.text()
      expect(html).toContain("<h1>Enter the code</h1>")
      expect(html).not.toContain('role="alert"')
    }
    // the reloads used up nothing: the code still signs in
    const done = await enterCode(client, code)
    expect(done.status).toBe(303)
    expect(done.headers.get("location")).toBe(ORIGIN)
  })
})

describe("the guide's whole flow of one's own (docs/flows.md, 'Write your own flow': tests/fixtures/sms-flow.ts)", () => {
  it("the guide shows the fixture whole, as it is", () => {
    const guide = readFileSync(join(repoRoot, "docs/flows.md"), "utf8")
    const block = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code?.startsWith("// sms-flow.ts"))
    expect(block).toBe(readFileSync(join(repoRoot, "tests/fixtures/sms-flow.ts"), "utf8"))
  })

  function smsApp() {
    const texts: { to: string; text: string }[] = []
    const log = captureLogger()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: log.logger,
      providers: [SmsCode({ sendSms: async (to, text) => void texts.push({ to, text }) })],
    }
    const client = new AuthClient(config)
    const start = async (phone: string) => client.send("/auth/callback/sms", { form: { csrfToken: await client.csrf(), phone } })
    const answer = async (code: string) =>
      client.send("/auth/callback/sms", { form: { csrfToken: await client.csrf(), step: "code", code } })
    const lastCode = () => /: (\d{6})$/.exec(texts.at(-1)?.text ?? "")?.[1] ?? ""
    return { client, texts, log, start, answer, lastCode }
  }

  it("the sign-in page's field → a text with the code → the code page (a reload shows it again) → signed in", async () => {
    const { client, texts, start, answer, lastCode } = smsApp()
    const signInPage = await (await client.send("/auth/signin")).text()
    expect(signInPage).toContain(`action="${ORIGIN}/auth/callback/sms"`)
    expect(signInPage).toContain('name="phone"')
    expect(signInPage).toContain("Sign in with Text message")

    const sent = await start("+44 7700 900123")
    expect(sent.status).toBe(200)
    expect(await sent.text()).toContain("<h1>Enter the code</h1>")
    expect(texts).toEqual([{ to: "+447700900123", text: `Your sign-in code for app.test: ${lastCode()}` }])
    expect((await client.send("/auth/callback/sms")).status).toBe(200)

    const done = await answer(lastCode())
    expect(done.status).toBe(303)
    const session = (await (await client.send("/auth/session")).json()) as { user?: { name?: string } }
    expect(session.user?.name).toBe("+447700900123")
  })

  it("its sign-in errors reach the sign-in page with their codes: invalid_phone, wrong_code, too_many_texts", async () => {
    const { start, answer } = smsApp()
    const codeOf = (res: Response) => new URL(res.headers.get("location") ?? "", ORIGIN).searchParams.get("code")
    expect(codeOf(await start("12345"))).toBe("invalid_phone")
    await start("+15550100200")
    expect(codeOf(await answer("000000x"))).toBe("wrong_code")
    await start("+15550100200")
    await start("+15550100200")
    const refused = await start("+15550100200")
    expect(refused.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=too_many_texts`)
  })
})
