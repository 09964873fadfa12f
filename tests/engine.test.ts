/**
 * The engine's four parts, each on its own, with a real request context (captured from a request the
 * runtime routed) and the confirm flow written on the public kit: load, run, persist, respond.
 */
import { describe, expect, it } from "vitest"
import type { RequestContext } from "authchart/flow"
import type { AuthConfig, FlowEnvelope } from "../src/index.js"
import { eventParams, loadFlow, persistFlow, runMachine, storeIO } from "../src/runtime/engine.js"
import { respondFlow } from "../src/runtime/flow-respond.js"
import { confirmFlow } from "./support/confirm-flow.js"
import { AuthClient, ORIGIN, SECRET } from "./helpers.js"

const flow = confirmFlow()
const start = flow.routes[0] as (typeof flow.routes)[number]
const step = flow.routes[1] as (typeof flow.routes)[number]

/** The context the runtime builds for `path` (a probe row on `/probe/two-step` captures it). */
async function contextOf(path: string, form?: Record<string, string>, cookie?: string): Promise<RequestContext> {
  let captured: RequestContext | undefined
  const probe = async (ctx: RequestContext) => {
    captured = ctx
    return { response: { status: 204 } }
  }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    flows: [flow],
    providers: [{ id: "two-step", name: "Two step", type: "credentials", flow: "confirm", credentials: {}, authorize: () => null }],
    routes: [
      { method: "GET", action: "probe", provider: true, handle: probe },
      { method: "POST", action: "probe", provider: true, handle: probe },
    ],
  }
  const client = new AuthClient(config)
  await client.send(path, { ...(form ? { form } : {}), ...(cookie ? { headers: { cookie } } : {}) })
  if (!captured) throw new Error("the probe row was not reached")
  return captured
}

describe("eventParams: an effect sees only the request fields its route declares", () => {
  it("named fields from the body (then the query); nothing else, csrfToken included", async () => {
    const ctx = await contextOf("/auth/probe/two-step?code=from-query&other=x", { code: "123456", csrfToken: "t", password: "pw" })
    expect(eventParams(ctx, step)).toEqual({ code: "123456" })
    expect(eventParams(ctx, { ...step, params: "query" })).toEqual({ code: "from-query", other: "x" })
    expect(eventParams(ctx, { ...step, params: undefined })).toEqual({})
  })
})

describe("load → run → persist → respond", () => {
  it("a start loads no envelope, resolves the callback URL and keeps it when the request named it", async () => {
    const ctx = await contextOf("/auth/probe/two-step", { password: "pw", callbackUrl: "/home" })
    const loaded = await loadFlow(ctx, flow, start, storeIO(ctx, flow))
    expect(loaded.envelope).toBeNull()
    expect(loaded.callback.url).toBe(`${ORIGIN}/home`)
    expect(loaded.keptUrl).toBe(`${ORIGIN}/home`)
    expect(loaded.flowId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("a resume without the flow's state is FlowStateError at load", async () => {
    const ctx = await contextOf("/auth/probe/two-step", { step: "confirm", code: "123456" })
    await expect(loadFlow(ctx, flow, step, storeIO(ctx, flow))).rejects.toMatchObject({ type: "FlowStateError" })
  })

  it("run rests at the page; persist seals the envelope with the callback URL; respond renders the page", async () => {
    const ctx = await contextOf("/auth/probe/two-step", { password: "pw", callbackUrl: "/home" })
    const io = storeIO(ctx, flow)
    const loaded = await loadFlow(ctx, flow, start, io)
    const outcome = await runMachine(ctx, flow, start, loaded)
    expect(outcome).toMatchObject({ status: "resting", state: "confirm", context: { reply: { type: "page", page: "confirm" } } })
    expect(JSON.stringify(outcome)).not.toContain('"pw"')

    const cookies = await persistFlow(ctx, flow, loaded, outcome, io)
    expect(cookies.map((c) => c.name)).toEqual(["authchart.flow.two-step"])
    const sealed = cookies[0]?.value as string
    const envelope = (await ctx.config.flowStore.load({ ...io, cookies: { [io.cookieName]: sealed } })) as FlowEnvelope
    expect(envelope).toMatchObject({ flow: "confirm", provider: "two-step", flowId: loaded.flowId, callbackUrl: `${ORIGIN}/home` })
    expect(JSON.stringify(envelope.snapshot)).not.toContain("callbackUrl")

    const handled = respondFlow(ctx, flow, loaded, outcome, cookies)
    expect(handled.response.status).toBe(200)
    expect(String(handled.response.body)).toContain("type the code")
    expect(handled.response.headers?.["Content-Security-Policy"]).toContain("form-action")
    expect(handled.response.cookies?.map((c) => c.name)).toContain("authchart.flow.two-step")
  })

  it("the resumed run ends; persist clears the state it carried; respond redirects to the kept callback URL", async () => {
    const first = await contextOf("/auth/probe/two-step", { password: "pw", callbackUrl: "/home" })
    const firstIo = storeIO(first, flow)
    const started = await loadFlow(first, flow, start, firstIo)
    const [saved] = await persistFlow(first, flow, started, await runMachine(first, flow, start, started), firstIo)
    const ctx = await contextOf("/auth/probe/two-step", { step: "confirm", code: "123456" }, `${saved?.name}=${saved?.value}`)
    const io = storeIO(ctx, flow)
    const loaded = await loadFlow(ctx, flow, step, io)
    expect(loaded.keptUrl).toBe(`${ORIGIN}/home`)
    const outcome = await runMachine(ctx, flow, step, loaded)
    expect(outcome).toMatchObject({
      status: "ended",
      state: "done",
      output: { ok: true, reply: { type: "redirect", url: `${ORIGIN}/home` } },
    })
    const cookies = await persistFlow(ctx, flow, loaded, outcome, io)
    expect(cookies.find((c) => c.name === "authchart.flow.two-step")?.options.maxAge).toBe(0)
    const handled = respondFlow(ctx, flow, loaded, outcome, cookies)
    expect(handled.response.redirect).toBe(`${ORIGIN}/home`)
    expect(handled.response.cookies?.map((c) => c.name)).toContain("authjs.session-token")
    // the same snapshot resumes once
    await expect(loadFlow(ctx, flow, step, io)).rejects.toMatchObject({ type: "FlowStateError" })
  })
})
