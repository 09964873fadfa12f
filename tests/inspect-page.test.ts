/**
 * The development inspector: its page in Chromium with the network cut off (it loads, draws every flow,
 * and follows sign-ins live), its Server-Sent Events feed (no secret in it), its JSON snapshot, and its
 * refusal in production.
 */
import { once } from "node:events"
import { mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { type Server, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join, resolve } from "node:path"
import express from "express"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { assign, fromPromise, setup } from "xstate"
import { Auth, type AuthConfig, type FlowDefinition, type InspectionEvent, defineFlow } from "../src/index.js"
import { ExpressAuth } from "../src/integration/express.js"
import { type InspectorHandle, consoleInspector, createInspector, formatEvent } from "../src/inspect/index.js"
import type { FlowOutput, Identity, Issued, Reply } from "../src/machines/types.js"
import Credentials from "../src/providers/credentials.js"
import { type Browser, launchBrowser } from "./support/browser.js"
import { drawnPlacement, expectedPlacement } from "./support/diagram-placement.js"
import { flows as extendedFlows } from "./fixtures/extended-flow.js"
import { CookieJar, SECRET } from "./helpers.js"

const PASSWORD = "correct-horse-battery-staple-42"
/** The inspector's fills of the current state and of the states a flow came through (page.ts). */
const CURRENT_FILL = "rgb(154, 230, 180)"
const VISITED_FILL = "rgb(226, 240, 251)"
const ARTIFACTS = resolve(import.meta.dirname, "../test-artifacts")

/** A flow that rests between two requests: sign in, then confirm a code (as an app would declare it). */
function confirmFlow(): FlowDefinition {
  type Ctx = { identity: Identity | null; reply: Reply | null; output: FlowOutput | null }
  type Ev = { type: "SUBMIT" | "STEP"; params: Record<string, unknown>; now: number }
  const machine = setup({
    types: { context: {} as Ctx, events: {} as Ev, input: {} as { provider: string }, output: {} as FlowOutput },
    actors: {
      checkPassword: fromPromise<Identity, Record<string, unknown>>(async ({ input }) => {
        if (input.password !== PASSWORD) throw new Error("bad password")
        return { user: { id: "7", name: "Carol" }, account: { provider: "two-step", providerAccountId: "7", type: "credentials" } }
      }),
      issueSession: fromPromise<Issued, Identity>(async () => ({ redirect: "/", cookies: [] })),
    },
  }).createMachine({
    id: "confirm",
    initial: "idle",
    context: { identity: null, reply: null, output: null },
    output: ({ context }) => context.output as FlowOutput,
    states: {
      idle: { tags: ["awaiting-input"], on: { SUBMIT: "checking" } },
      checking: {
        invoke: {
          src: "checkPassword",
          input: ({ event }) => event.params,
          onDone: {
            target: "confirming",
            actions: assign({
              identity: ({ event }) => event.output,
              reply: () => ({ type: "page", page: "confirm" }) as Reply,
            }),
          },
          onError: { target: "failed", actions: assign({ output: ({ event }) => ({ ok: false, error: event.error }) }) },
        },
      },
      confirming: {
        tags: ["awaiting-input"],
        on: { STEP: { guard: ({ event }) => event.params.code === "123456", target: "issuing" } },
      },
      issuing: {
        invoke: {
          src: "issueSession",
          input: ({ context }) => context.identity as Identity,
          onDone: {
            target: "done",
            actions: assign({ output: ({ event }) => ({ ok: true, reply: { type: "redirect", url: event.output.redirect } }) }),
          },
          onError: { target: "failed", actions: assign({ output: ({ event }) => ({ ok: false, error: event.error }) }) },
        },
      },
      done: { type: "final" },
      failed: { type: "final" },
    },
  })
  return defineFlow({
    id: "confirm",
    machine,
    routes: [
      { method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["password"] },
      { method: "POST", action: "callback", step: "confirm", event: "STEP", csrf: true, params: ["code"] },
    ],
    pages: { confirm: () => "<p>type the code</p>" },
  })
}

function appConfig(inspector: InspectorHandle): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    flows: [confirmFlow(), ...extendedFlows],
    providers: [
      Credentials({ authorize: (c) => (c.password === PASSWORD ? { id: "1", name: "Ann" } : null) }),
      { id: "two-step", name: "Two step", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null },
    ],
    inspect: inspector.inspect,
    routes: inspector.routes,
  }
}

/** A client over real HTTP with a cookie jar. */
class Client {
  readonly jar = new CookieJar()
  constructor(readonly origin: string) {}
  async send(path: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.jar.header() }
    if (form) headers["content-type"] = "application/x-www-form-urlencoded"
    const response = await fetch(`${this.origin}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: "manual",
    })
    this.jar.apply(response)
    return response
  }
  async csrf(): Promise<string> {
    return ((await (await this.send("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
  }
}

let server: Server
let origin: string
let inspector: InspectorHandle

beforeAll(async () => {
  inspector = createInspector()
  const app = express()
  app.use("/auth", ExpressAuth(appConfig(inspector)))
  server = createServer(app)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  server.close()
})

const isLoopback = (url: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname)

describe("the inspector page in Chromium, offline", () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser.close()
  })

  it("draws every flow, lists sign-ins as they run and highlights their current state", async () => {
    const blocked: string[] = []
    await browser.context.route("**/*", (route) => {
      const url = route.request().url()
      if (isLoopback(url) || url.startsWith("data:")) return route.continue()
      blocked.push(url)
      return route.abort()
    })
    const page = await browser.context.newPage()
    const errors: string[] = []
    page.on("pageerror", (err) => errors.push(err.message))
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text())
    })
    const response = await page.goto(`${origin}/auth/__inspect`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'")

    // every flow of the config, built-in and extended, is drawn from its machine
    const flowIds = ["credentials", "oauth", "email", "confirm"]
    for (const id of flowIds) {
      await page.locator(`article.diagram[data-flow="${id}"][data-rendered="true"] svg`).waitFor({ timeout: 20_000 })
    }
    expect(await page.locator("article.diagram").evaluateAll((els) => els.map((e) => e.getAttribute("data-flow")))).toEqual(
      expect.arrayContaining(flowIds),
    )
    const confirmStates = await page
      .locator('article.diagram[data-flow="confirm"] svg g.node')
      .evaluateAll((nodes) => nodes.map((n) => n.textContent?.trim()).filter(Boolean))
    expect(confirmStates).toEqual(expect.arrayContaining(["idle", "checking", "confirming", "issuing", "done", "failed"]))
    // the credentials flow with two extra steps: each state drawn inside its own parent, no step inside another
    const extended = expectedPlacement((extendedFlows[0] as FlowDefinition).machine)
    const drawn = await drawnPlacement(page.locator('article.diagram[data-flow="credentials"] svg').first())
    expect(Object.fromEntries(Object.keys(extended).map((id) => [id, drawn[id]]))).toEqual(extended)
    await page.locator('#status[data-state="live"]').waitFor()

    // a credentials sign-in: the list shows it, the diagram highlights where it ended
    const ann = new Client(origin)
    const signIn = await ann.send("/auth/callback/credentials", { csrfToken: await ann.csrf(), password: PASSWORD })
    expect(signIn.status).toBe(303)
    await page.locator('.flow-item[data-flow="credentials"][data-status="done"]').waitFor()
    const credentialsCurrent = page.locator('article.diagram[data-flow="credentials"] g.node.current')
    await expect.poll(() => credentialsCurrent.textContent()).toBe("done")

    // a two-step sign-in rests in `confirming`, then moves on to `done`: the highlight follows
    const carol = new Client(origin)
    const csrfToken = await carol.csrf()
    const rest = await carol.send("/auth/callback/two-step", { csrfToken, password: PASSWORD })
    expect(rest.status).toBe(200)
    const confirmArticle = page.locator('article.diagram[data-flow="confirm"]')
    await expect.poll(() => confirmArticle.getAttribute("data-current")).toBe("confirming")
    await expect.poll(() => confirmArticle.locator("g.node.current").textContent()).toBe("confirming")
    await page.locator('.flow-item[data-flow="confirm"][data-status="resting"]').waitFor()
    // the resting state is drawn highlighted (over its awaiting-input style), the states it came through marked
    const fillOf = (selector: string) =>
      confirmArticle
        .locator(`${selector} :is(rect, path, polygon)`)
        .first()
        .evaluate((shape) => getComputedStyle(shape).fill)
    await expect.poll(() => fillOf("g.node.current")).toBe(CURRENT_FILL)
    await expect.poll(() => confirmArticle.locator("g.node.visited").allTextContents()).toEqual(["checking"])
    expect(await fillOf("g.node.visited")).toBe(VISITED_FILL)
    // a diagram opens large: the same drawing at least as Mermaid drew it (the card shrinks the credentials
    // flow with its two steps), its highlight kept, zoomable; closing puts it back in its card
    const credentialsArticle = page.locator('article.diagram[data-flow="credentials"]')
    const cardWidth = await credentialsArticle
      .locator("svg")
      .first()
      .evaluate((svg) => svg.getBoundingClientRect().width)
    const drawnWidth = await credentialsArticle
      .locator("svg")
      .first()
      .evaluate((svg) => (svg as SVGSVGElement).viewBox.baseVal.width)
    expect(drawnWidth).toBeGreaterThan(cardWidth * 1.5)
    await credentialsArticle.getByRole("button", { name: "Open large" }).click()
    const zoom = page.locator("dialog#zoom")
    await expect.poll(() => zoom.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true)
    expect(await zoom.locator("h2").textContent()).toBe("credentials")
    await expect.poll(() => zoom.locator("g.node.current").textContent()).toBe("done")
    const width = () =>
      zoom
        .locator("svg")
        .first()
        .evaluate((svg) => svg.getBoundingClientRect().width)
    const large = await width()
    expect(large).toBeGreaterThanOrEqual(Math.floor(drawnWidth))
    await zoom.getByRole("button", { name: "Zoom out" }).click()
    await expect.poll(width).toBeLessThan(large)
    await page.screenshot({ path: join(ARTIFACTS, "inspector-large.png") })
    await zoom.getByRole("button", { name: "Zoom in" }).click()
    await zoom.getByRole("button", { name: "Zoom in" }).click()
    await expect.poll(width).toBeGreaterThan(large)
    await page.keyboard.press("Escape")
    await expect.poll(() => zoom.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false)
    await expect.poll(() => credentialsArticle.locator("svg g.node.current").textContent()).toBe("done")
    expect(
      await credentialsArticle
        .locator("svg")
        .first()
        .evaluate((svg) => svg.getBoundingClientRect().width),
    ).toBe(cardWidth)
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, "inspector-resting.png"), fullPage: true })

    const done = await carol.send("/auth/callback/two-step", { csrfToken, step: "confirm", code: "123456" })
    expect(done.status).toBe(303)
    await expect.poll(() => confirmArticle.locator("g.node.current").textContent()).toBe("done")
    await page.locator('.flow-item[data-flow="confirm"][data-status="done"]').waitFor()

    // the timeline of a selected flow
    await page.locator('.flow-item[data-flow="credentials"]').click()
    await expect.poll(() => page.locator("#timeline-title").textContent()).toContain("credentials / credentials")
    const rows = await page.locator("#timeline-body tr td.type").allTextContents()
    expect(rows[0]).toBe("request")
    expect(rows.at(-1)).toBe("end")
    expect(rows).toContain("effect")
    // the flow's own events and states, in order: no xstate internals
    const details = await page.locator("#timeline-body tr td.detail").allTextContents()
    expect(details.slice(0, 4)).toEqual(["POST callback → SUBMIT", "authorizing ← SUBMIT", "authorize start", "authorize done"])
    expect(details).toContain("totp.entering ← done: linkIdentity")
    expect(details.slice(-2)).toEqual(["done ← done: issueSession", "done ✓"])
    expect(details.join("\n")).not.toContain("xstate.")
    await page.locator('.flow-item[data-flow="confirm"]').click()
    await expect.poll(() => page.locator("#timeline-body td.type").allTextContents()).toContain("persist")

    await page.screenshot({ path: join(ARTIFACTS, "inspector.png"), fullPage: true })
    expect(await page.content()).not.toContain(PASSWORD)
    expect(blocked).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)

  it("without Mermaid, shows each diagram's source and still follows the flows", async () => {
    const page = await browser.context.newPage()
    await page.route("**/__inspect-mermaid", (route) => route.fulfill({ status: 404, body: "" }))
    await page.goto(`${origin}/auth/__inspect`)
    await page.locator("#no-mermaid").waitFor({ state: "visible" })
    const source = page.locator('article.diagram[data-flow="credentials"] details')
    expect(await source.getAttribute("open")).not.toBeNull()
    expect(await source.locator("pre").textContent()).toContain("idle --> authorizing: SUBMIT")
    await page.locator('#status[data-state="live"]').waitFor()
    const eve = new Client(origin)
    await eve.send("/auth/callback/credentials", { csrfToken: await eve.csrf(), password: PASSWORD })
    const credentials = page.locator('article.diagram[data-flow="credentials"]')
    await expect.poll(() => credentials.getAttribute("data-current")).toBe("done")
    await expect.poll(() => credentials.locator(".current-state").textContent()).toContain("done")
    await page.close()
  }, 60_000)
})

/** Reads SSE messages from a response until `until` says stop. */
async function readEvents(
  response: Response,
  until: (messages: { event: string; data: unknown }[]) => boolean,
): Promise<{ raw: string; messages: { event: string; data: unknown }[] }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let raw = ""
  const messages: { event: string; data: unknown }[] = []
  while (!until(messages)) {
    const { done, value } = await reader.read()
    if (done) break
    raw += decoder.decode(value, { stream: true })
    const blocks = raw.split("\n\n")
    messages.length = 0
    for (const block of blocks.slice(0, -1)) {
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event && data) messages.push({ event, data: JSON.parse(data) })
    }
  }
  await reader.cancel()
  return { raw, messages }
}

describe("the live feed", () => {
  // no feed left open by an earlier test, nor by this one
  const noFeedOpen = async () => {
    await expect.poll(() => inspector.connections()).toBe(0)
  }
  beforeEach(noFeedOpen)
  afterEach(noFeedOpen)

  it("streams a snapshot, then each event of a sign-in as JSON, with no secret in it (Express)", async () => {
    const controller = new AbortController()
    const feed = await fetch(`${origin}/auth/__inspect-events`, { signal: controller.signal })
    expect(feed.status).toBe(200)
    expect(feed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    expect(feed.headers.get("cache-control")).toBe("no-cache, no-transform")
    expect(inspector.connections()).toBe(1)

    const dora = new Client(origin)
    const csrfToken = await dora.csrf()
    const signingIn = dora.send("/auth/callback/credentials", { csrfToken, password: PASSWORD })
    const { raw, messages } = await readEvents(feed, (m) =>
      m.some((x) => x.event === "update" && (x.data as { event: InspectionEvent }).event.type === "end"),
    )
    const signIn = await signingIn
    controller.abort()
    expect(messages[0]?.event).toBe("snapshot")
    const events = messages.filter((m) => m.event === "update").map((m) => (m.data as { event: InspectionEvent }).event)
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["request", "transition", "effect", "end"]))
    expect(events.at(-1)).toMatchObject({ type: "end", flow: "credentials", provider: "credentials", state: "done", ok: true })
    const sessionCookie = dora.jar.get("authjs.session-token") as string
    expect(sessionCookie).toBeTruthy()
    expect(signIn.status).toBe(303)
    for (const secret of [PASSWORD, csrfToken, SECRET, sessionCookie]) expect(raw).not.toContain(secret)
  })

  it("streams through Express 4 too, and ends when the client goes away", async () => {
    const express4 = createRequire(import.meta.url)("express4") as typeof express
    const own = createInspector()
    const app = express4()
    app.use("/auth/*", ExpressAuth(appConfig(own)))
    const server4 = createServer(app)
    server4.listen(0, "127.0.0.1")
    await once(server4, "listening")
    try {
      const controller = new AbortController()
      const feed = await fetch(`http://127.0.0.1:${(server4.address() as AddressInfo).port}/auth/__inspect-events`, {
        signal: controller.signal,
      })
      expect(feed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
      const { messages } = await readEvents(feed, (m) => m.length > 0)
      expect(messages[0]?.event).toBe("snapshot")
      controller.abort()
      await expect.poll(() => own.connections()).toBe(0)
    } finally {
      server4.closeAllConnections()
      server4.close()
    }
  })

  it("passes a stream body through the web Response of `Auth`", async () => {
    const own = createInspector()
    const config = appConfig(own)
    const response = await Auth(new Request("http://app.test/auth/__inspect-events"), config)
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const { messages } = await readEvents(response, (m) => m.length > 0)
    expect(messages[0]).toMatchObject({ event: "snapshot", data: { flows: [], maxFlows: 50 } })
    expect(own.connections()).toBe(0)
  })

  it("serves a JSON snapshot of the recent flows and the diagrams", async () => {
    const response = await fetch(`${origin}/auth/__inspect-state`)
    expect(response.headers.get("content-type")).toBe("application/json")
    const body = (await response.json()) as { flows: { flow: string; events: unknown[] }[]; diagrams: { id: string; mermaid: string }[] }
    expect(body.diagrams.map((d) => d.id)).toEqual(expect.arrayContaining(["credentials", "oauth", "email", "confirm"]))
    expect(body.flows.some((f) => f.flow === "credentials" && f.events.length > 0)).toBe(true)
    expect(JSON.stringify(body)).not.toContain(PASSWORD)
  })

  it("keeps at most `maxFlows` flows, the least recently active forgotten first", () => {
    const small = createInspector({ maxFlows: 2, maxEvents: 3 })
    const base = { flow: "credentials", provider: "credentials", at: 1 }
    for (const flowId of ["a", "b", "a", "c"]) small.inspect({ ...base, flowId, type: "transition", state: "idle", event: "x" })
    for (let i = 0; i < 5; i++) small.inspect({ ...base, flowId: "c", type: "transition", state: `s${i}`, event: "x" })
    const flows = small.flows()
    expect(flows.map((f) => f.flowId)).toEqual(["c", "a"])
    expect(flows[0]).toMatchObject({ state: "s4", dropped: 3 })
    expect(flows[0]?.events).toHaveLength(3)
  })
})

describe("in production", () => {
  const original = process.env.NODE_ENV
  afterEach(() => {
    process.env.NODE_ENV = original
  })

  it("every inspector route answers 404 and nothing is recorded, unless forced", async () => {
    const refused = createInspector()
    const forced = createInspector({ force: true })
    process.env.NODE_ENV = "production"
    for (const suffix of ["", "-events", "-state", "-mermaid"]) {
      const response = await Auth(new Request(`http://app.test/auth/__inspect${suffix}`), appConfig(refused))
      expect(response.status, suffix).toBe(404)
      await response.body?.cancel()
    }
    refused.inspect({ flowId: "x", flow: "credentials", provider: "credentials", at: 1, type: "transition", state: "idle", event: "x" })
    expect(refused.flows()).toEqual([])
    const page = await Auth(new Request("http://app.test/auth/__inspect"), appConfig(forced))
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("authchart inspector")
  })
})

describe("the page without network resources", () => {
  it("escapes flow ids and links only its own routes", async () => {
    const hostile = defineFlow({ ...confirmFlow(), id: '</script><img src=x onerror="alert(1)">' })
    const own = createInspector({ path: "dev-inspect", flows: [hostile] })
    const config = appConfig(own)
    const html = await (await Auth(new Request("http://app.test/auth/dev-inspect"), config)).text()
    expect(html).not.toContain("<img")
    expect(html).toContain("&#60;/script&#62;&#60;img src=x onerror=&#34;alert(1)&#34;&#62;")
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    expect(html).toContain('src="/auth/dev-inspect-mermaid"')
    expect(html).toContain('"eventsUrl":"/auth/dev-inspect-events"')
    expect(() => createInspector({ path: "signin" })).toThrow(TypeError)
    expect(() => createInspector({ path: "a/b" })).toThrow(TypeError)
  })
})

describe("consoleInspector", () => {
  it("prints one compact line per event, coloured only when asked", () => {
    const lines: string[] = []
    const log = consoleInspector({ write: (l) => lines.push(l), colors: false })
    const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime()
    const base = { flowId: "3f9c1a2e-0000-4000-8000-000000000000", flow: "credentials", provider: "credentials", at }
    log({ ...base, type: "request", method: "POST", action: "callback", event: "SUBMIT" })
    log({ ...base, type: "end", state: "failed", ok: false, errorType: "CredentialsSignin" })
    expect(lines).toEqual([
      "03:04:05.006 credentials  credentials  3f9c1a2e request    POST callback → SUBMIT",
      "03:04:05.006 credentials  credentials  3f9c1a2e end        failed ✗ CredentialsSignin",
    ])
    expect(formatEvent({ ...base, type: "transition", state: "gate", event: "x" }, true)).toContain("\u001b[36mtransition")
  })
})
