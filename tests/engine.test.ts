/**
 * The engine's four parts, each on its own, with a real request context (captured from a request the
 * runtime routed) and the confirm flow written on the public kit: load, run, persist, respond.
 */
import { describe, expect, it } from "vitest"
import { type AnyStateMachine, assign, createActor, fromPromise, not, setup, type Snapshot } from "xstate"
import { AWAITING_INPUT, declareEffect, defineFlow, effect, type FlowEvent, flowBase, flowTypes, type Identity } from "authchart/flow"
import type { GateResult } from "../src/machines/types.js"
import type { RequestContext } from "../src/runtime/http/context.js"
import { CredentialsSignin, defineStep, extendFlow } from "../src/index.js"
import { credentialsMachine } from "../src/machines/credentials.js"
import { FlowRun, type RunOptions } from "../src/runtime/engine/actor-run.js"
import type { AuthConfig, FlowEnvelope } from "../src/index.js"
import { eventParams, persistFlow, runMachine } from "../src/runtime/engine/engine.js"
import { loadFlow, storeIO } from "../src/runtime/engine/load.js"
import { discoveryCache } from "../src/runtime/oauth/server.js"
import { respondFlow } from "../src/runtime/engine/outcome.js"
import { defaultRedirect, resolveCallbackUrl } from "../src/runtime/http/callback-url.js"
import { confirmFlow, confirmMachine } from "./support/confirm-flow.js"
import { AuthClient, ORIGIN, SECRET } from "./helpers.js"

const flow = confirmFlow()
const start = flow.routes[0] as (typeof flow.routes)[number]
const step = flow.routes[1] as (typeof flow.routes)[number]

/** The context the runtime builds for `path` (a probe row on `/probe/two-step` captures it). */
async function contextOf(
  path: string,
  form?: Record<string, string>,
  cookie?: string,
  extra: Partial<AuthConfig> = {},
): Promise<RequestContext> {
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
    ...extra,
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
    // a named field the body lacks comes from the query, decoded as URLSearchParams decodes it
    expect(eventParams(ctx, { ...step, params: ["code", "other", "absent"] })).toEqual({ code: "123456", other: "x" })
    const encoded = await contextOf("/auth/probe/two-step?other=a+b%20c", { csrfToken: "t" })
    expect(eventParams(encoded, { ...step, params: ["other"] })).toEqual({ other: "a b c" })
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

  it.each([
    ["/home", undefined],
    [`${ORIGIN}/deep/page?x=1#y`, undefined],
    ["https://evil.example/steal", undefined],
    ["//evil.example/steal", undefined],
    ["/\\evil.example", undefined],
    ["javascript:alert(1)", undefined],
    ["not a url", undefined],
    [ORIGIN, undefined],
    [`${ORIGIN.toUpperCase()}:80/Up/../x`, undefined],
    ["data:text/html,<p>x</p>", undefined],
    [undefined, `authjs.callback-url=${encodeURIComponent(`${ORIGIN}/from-cookie`)}`],
    [undefined, `authjs.callback-url=${encodeURIComponent("https://evil.example/")}`],
    [undefined, undefined],
  ])("a start's callback URL (%s, cookie %s): the built-in redirect callback gives what the same callback given by the app gives", async (callbackUrl, cookie) => {
    const form = { password: "pw", ...(callbackUrl === undefined ? {} : { callbackUrl }) }
    const builtIn = await contextOf("/auth/probe/two-step", form, cookie)
    // the same callback given by the app: asked through the redirect callback
    const own = await contextOf("/auth/probe/two-step", form, cookie, { callbacks: { redirect: (p) => defaultRedirect(p) } })
    expect(await resolveCallbackUrl(builtIn)).toEqual(await resolveCallbackUrl(own))
    const [a, b] = [await loadFlow(builtIn, flow, start, storeIO(builtIn, flow)), await loadFlow(own, flow, start, storeIO(own, flow))]
    expect({ ...a, flowId: "" }).toEqual({ ...b, flowId: "" })
  })

  it("a resume without the flow's state is FlowStateError at load", async () => {
    const ctx = await contextOf("/auth/probe/two-step", { step: "confirm", code: "123456" })
    await expect(loadFlow(ctx, flow, step, storeIO(ctx, flow))).rejects.toMatchObject({ type: "FlowStateError" })
  })

  it("a run that cannot start is a rejected promise, never a throw", async () => {
    const ctx = await contextOf("/auth/probe/two-step", { password: "pw", callbackUrl: "/home" })
    const loaded = await loadFlow(ctx, flow, start, storeIO(ctx, flow))
    // a persisted snapshot this flow cannot restore
    const broken = {
      ...loaded,
      envelope: { ...(loaded.envelope ?? {}), snapshot: { status: "active", value: "nowhere", context: {} } },
    } as typeof loaded
    const failing = runMachine(ctx, flow, step, broken)
    expect(failing).toBeInstanceOf(Promise)
    await expect(failing).rejects.toMatchObject({ type: "FlowStateError" })
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

  it("the page's cancel link is the sign-in page with the callback URL, the built-in one or the app's own", async () => {
    const cancelOf = async (extra: Partial<AuthConfig> = {}) => {
      const ctx = await contextOf("/auth/probe/two-step", { password: "pw", callbackUrl: "/home?a=1&b=ü x" }, undefined, extra)
      const io = storeIO(ctx, flow)
      const loaded = await loadFlow(ctx, flow, start, io)
      const outcome = await runMachine(ctx, flow, start, loaded)
      const handled = respondFlow(ctx, flow, loaded, outcome, await persistFlow(ctx, flow, loaded, outcome, io))
      const href = /<p class="cancel"><a href="([^"]+)"/.exec(String(handled.response.body))?.[1]
      return { href: href?.replaceAll("&amp;", "&"), callbackUrl: loaded.keptUrl as string }
    }
    // as `new URL` and `searchParams.set` write it
    const builtIn = await cancelOf()
    expect(builtIn.callbackUrl).toBe(`${ORIGIN}/home?a=1&b=%C3%BC%20x`)
    const expected = new URL(`${ORIGIN}/auth/signin`)
    expected.searchParams.set("callbackUrl", builtIn.callbackUrl)
    expect(builtIn.href).toBe(expected.href)
    const custom = await cancelOf({ pages: { signIn: "/login?from=step" } })
    const expectedCustom = new URL(`${ORIGIN}/login?from=step`)
    expectedCustom.searchParams.set("callbackUrl", custom.callbackUrl)
    expect(custom.href).toBe(expectedCustom.href)
  })

  it("the page's form-action names a provider's authorization server discovered after an earlier page", async () => {
    const pageOf = async (ctx: RequestContext) => {
      const io = storeIO(ctx, flow)
      const loaded = await loadFlow(ctx, flow, start, io)
      const outcome = await runMachine(ctx, flow, start, loaded)
      return respondFlow(ctx, flow, loaded, outcome, await persistFlow(ctx, flow, loaded, outcome, io))
    }
    const ctx = await contextOf("/auth/probe/two-step", { password: "pw" })
    const policyOf = async () => (await pageOf(ctx)).response.headers?.["Content-Security-Policy"]?.replace(/'nonce-[^']+'/g, "'nonce'")
    const before = await policyOf()
    expect(before).toContain(`form-action 'self' ${ORIGIN};`)
    const discovered = { authorization_endpoint: "https://login.example/authorize" }
    discoveryCache(ctx.config).set("probe", { server: discovered } as never)
    expect(await policyOf()).toContain(`form-action 'self' ${ORIGIN} https://login.example;`)
    discoveryCache(ctx.config).delete("probe")
    expect(await policyOf()).toBe(before)
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

/**
 * The engine's runner: a flow's machine on an xstate actor, inspected or not. What it runs is the
 * machine's own behaviour: states, contexts, outputs, effect calls, persisted snapshots, the timeout.
 */
describe("the runner runs the flow machine on xstate", () => {
  const identity: Identity = {
    user: { id: "1", name: "Carol" },
    account: { provider: "two-step", providerAccountId: "1", type: "credentials" },
    credentials: { password: "pw" },
  }
  type Calls = [string, unknown][]
  /** The flow's machine with effects that answer from a script and record what they were given. */
  function scripted(machine: AnyStateMachine, answers: Record<string, (input: never) => unknown>, calls: Calls, atOnce = false) {
    const actors = Object.fromEntries(
      Object.entries(answers).map(([id, answer]) => {
        const run = (_ctx: unknown, input: never) => {
          calls.push([id, input])
          return answer(input)
        }
        // an effect that answers at once (a value or a throw), or an async one
        return [id, atOnce ? effect(run) : effect(async (ctx, input: never) => run(ctx, input))]
      }),
    )
    return machine.provide({ actors })
  }
  const tail = {
    signInGate: () => ({ allow: true }),
    linkIdentity: (input: Identity) => ({ ...input, isNewUser: true }),
    issueSession: () => ({ redirect: `${ORIGIN}/home`, cookies: [{ name: "s" }] }),
  }

  async function runOptions(persisted: unknown, extra: Partial<RunOptions> = {}): Promise<RunOptions> {
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    return { persisted, input: { provider: "two-step", now: 1 }, ctx, timeout: 5_000, ...extra }
  }

  /** One request: what it ended or rested at, and the effects it called. */
  async function request(
    machine: AnyStateMachine,
    persisted: unknown,
    event: FlowEvent,
    answers: Record<string, (input: never) => unknown>,
    atOnce = false,
  ) {
    const calls: Calls = []
    const run = new FlowRun(scripted(machine, answers, calls, atOnce), await runOptions(persisted))
    try {
      if (!run.before.can(event)) return { taken: false, calls }
      const after = await run.send(event)
      const { value, status, context, output, error } = after
      const saved = status === "active" ? JSON.parse(JSON.stringify(run.persist())) : undefined
      return { taken: true, value, status, context, output, error, persisted: saved, calls }
    } finally {
      run.stop()
    }
  }
  const submit: FlowEvent = { type: "SUBMIT", params: { password: "pw" }, now: 1 }
  /** A thenable that is not a promise, whose `then` runs `then`. */
  const thenable = (then: (ok: (value: unknown) => void) => void): unknown => ({ then })

  it.each([
    [
      "a sign-in to the end",
      { ...tail, authorize: () => identity },
      { status: "done", output: { ok: true, reply: { url: `${ORIGIN}/home` } } },
    ],
    [
      "a sign-in the signIn callback redirects elsewhere",
      { ...tail, authorize: () => identity, signInGate: () => ({ allow: false, redirect: "/x" }) },
      { status: "done", output: { ok: true, reply: { url: "/x" } } },
    ],
    [
      "a sign-in whose authorize throws",
      { ...tail, authorize: () => Promise.reject(new CredentialsSignin()) },
      { status: "done", output: { ok: false, error: { type: "CredentialsSignin" } } },
    ],
    [
      "a sign-in whose session cannot be issued",
      { ...tail, authorize: () => identity, issueSession: () => Promise.reject(new Error("down")) },
      { status: "done", output: { ok: false, error: { message: "down" } } },
    ],
  ])("credentials: %s", async (_name, answers, end) => {
    const ran = await request(credentialsMachine, undefined, submit, answers)
    expect(ran).toMatchObject(end)
    expect(ran.calls.length).toBeGreaterThan(0)
  })

  it.each([
    ["a sign-in to the end", { ...tail, authorize: () => identity }, { ok: true }],
    [
      "a sign-in whose authorize throws at once",
      {
        ...tail,
        authorize: () => {
          throw new CredentialsSignin()
        },
      },
      { ok: false, error: { type: "CredentialsSignin" } },
    ],
    ["a sign-in whose authorize answers later", { ...tail, authorize: () => Promise.resolve(identity) }, { ok: true }],
    ["a sign-in whose authorize answers a thenable", { ...tail, authorize: () => thenable((ok) => ok(identity)) }, { ok: true }],
    [
      "a sign-in whose authorize answers a thenable that throws",
      {
        ...tail,
        authorize: () =>
          thenable(() => {
            throw new CredentialsSignin()
          }),
      },
      { ok: false, error: { type: "CredentialsSignin" } },
    ],
  ])("credentials, effects written without async: %s", async (_name, answers, output) => {
    const ran = await request(credentialsMachine, undefined, submit, answers, true)
    expect(ran).toMatchObject({ status: "done", output })
    expect(ran.calls.length).toBeGreaterThan(0)
  })

  it("runs waiting on effects that never settle each fail at their own deadline; a run stopped while it waits fails", async () => {
    const never = () => new Promise(() => {})
    const runWith = async (authorize: () => unknown, timeout: number) =>
      new FlowRun(scripted(credentialsMachine, { ...tail, authorize }, []), await runOptions(undefined, { timeout }))
    const [long, short, ends] = [await runWith(never, 600_000), await runWith(never, 50), await runWith(() => identity, 600_000)]
    const [longSent, shortSent, endsSent] = [long.send(submit), short.send(submit), ends.send(submit)]
    const startedAt = performance.now()
    await expect(endsSent).resolves.toMatchObject({ status: "done" })
    await expect(shortSent).rejects.toMatchObject({ type: "FlowStateError", message: "The sign-in step did not finish within 50 ms." })
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(45)
    long.stop()
    await expect(longSent).rejects.toMatchObject({ type: "FlowStateError" })
    for (const run of [short, ends]) run.stop()
  })

  it("a flow that rests (re-entering its resting state on a wrong code) persists its snapshot and resumes from it", async () => {
    const machine = confirmMachine()
    const answers = { ...tail, authorize: () => identity }
    const started = await request(machine, undefined, submit, answers)
    expect(started).toMatchObject({ status: "active", value: "confirm", context: { pending: { tries: 0 } } })

    const wrong: FlowEvent = { type: "STEP", params: { code: "000000" }, now: 2 }
    const right: FlowEvent = { type: "STEP", params: { code: "123456" }, now: 3 }
    const once = await request(machine, started.persisted, wrong, answers)
    expect(once).toMatchObject({ value: "confirm", context: { pending: { tries: 1 } } })
    const ended = await request(machine, once.persisted, right, answers)
    expect(ended).toMatchObject({ status: "done", output: { ok: true, reply: { url: `${ORIGIN}/home` } } })
    // an event the resting state does not take changes nothing
    expect(await request(machine, started.persisted, submit, answers)).toEqual({ taken: false, calls: [] })
  })

  it("a flow extended with a step (nested states, a transition by id across levels) runs its step", async () => {
    const extended = extendFlow(defineFlow({ id: "confirm", machine: confirmMachine(), routes: flow.routes }), [
      defineStep({ id: "terms", page: () => ({ title: "Terms", fields: "" }), submit: () => true }),
    ]).machine
    let accepted = false
    const answers = {
      ...tail,
      authorize: () => identity,
      "terms.enter": () => ({ skip: false, data: { shown: true } }),
      "terms.submit": () => (accepted ? { result: "pass", data: {} } : { result: "retry", message: "again", data: {} }),
    }
    const right: FlowEvent = { type: "STEP", params: { code: "123456" }, now: 2 }
    const atStart = await request(extended, undefined, submit, answers)
    const confirmed = await request(extended, atStart.persisted, right, answers)
    expect(confirmed).toMatchObject({ value: { terms: "waiting" }, context: { steps: { terms: { data: { shown: true } } } } })
    const answer: FlowEvent = { type: "STEP", params: { accept: "yes" }, now: 3 }
    const retried = await request(extended, confirmed.persisted, answer, answers)
    expect(retried).toMatchObject({
      value: { terms: "waiting" },
      context: { steps: { terms: { attempts: 1 } }, reply: { data: { message: "again" } } },
    })
    accepted = true
    const passed = await request(extended, retried.persisted, answer, answers)
    expect(passed).toMatchObject({ status: "done", output: { ok: true } })
  })

  it("extendFlow inserts steps at the tail's extension point (linking → first step → issuing) and refuses a flow without the shared tail", () => {
    const terms = defineStep({ id: "terms", run: () => true })
    const machine = extendFlow(flow, [terms]).machine
    const targets = (state: string) => machine.root.states[state]?.transitions.values()
    const linking = [...(targets("linking") ?? [])].flat().map((t) => t.target?.map((node) => node.key))
    expect(linking).toEqual([["terms"], ["failed"]])
    expect(machine.root.states.terms?.states.entering?.config.invoke).toMatchObject({ src: "terms.enter" })
    // the original machine keeps its own tail: linking still goes on to issuing
    expect([...(flow.machine.root.states.linking?.transitions.values() ?? [])].flat().map((t) => t.target?.[0]?.key)).toEqual([
      "issuing",
      "failed",
    ])
    const ownTail = setup({ types: flowTypes() }).createMachine({
      id: "own-tail",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "linking" } }, linking: { always: "issuing" }, issuing: { type: "final" } },
    })
    expect(() => extendFlow(defineFlow({ id: "own-tail", machine: ownTail, routes: flow.routes }), [terms])).toThrow(
      "extendFlow(own-tail): the flow does not end in the shared sign-in tail (signInTail) to extend",
    )
  })

  it("a start rests at the machine's initial state (value, tags, context), also when a state entered at the start runs an action", async () => {
    const entering = setup({ types: flowTypes() }).createMachine({
      id: "entering",
      ...flowBase,
      entry: assign({ steps: () => ({ seen: { attempts: 1 } }) }),
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "done" } }, done: { type: "final" } },
    })
    const options = await runOptions(undefined, { input: { provider: "two-step", now: 7 } })
    for (const machine of [credentialsMachine, confirmMachine(), entering]) {
      const run = new FlowRun(scripted(machine, { ...tail, authorize: () => identity }, []), options)
      try {
        const { before } = run
        expect({
          value: before.value,
          status: before.status,
          resting: before.hasTag(AWAITING_INPUT),
          context: before.context,
        }).toMatchObject({
          value: "idle",
          status: "active",
          resting: true,
          context: { provider: "two-step", startedAt: 7 },
        })
        expect(JSON.parse(JSON.stringify(run.persist()))).toMatchObject({ status: "active", value: "idle", context: { startedAt: 7 } })
      } finally {
        run.stop()
      }
    }
    expect((await request(entering, undefined, submit, {})).value).toBe("done")
  })

  it("one machine, request after request: a transition a guard chooses is chosen again each time, never remembered", async () => {
    let verdict: GateResult = { allow: true }
    const provided = scripted(credentialsMachine, { ...tail, authorize: () => identity, signInGate: () => verdict }, [])
    const outputs: unknown[] = []
    for (const next of [{ allow: true }, { allow: false, redirect: "/elsewhere" }, { allow: true }] as GateResult[]) {
      verdict = next
      const run = new FlowRun(provided, await runOptions(undefined))
      outputs.push((await run.send(submit)).output)
      run.stop()
    }
    expect(outputs).toMatchObject([
      { reply: { url: `${ORIGIN}/home` } },
      { reply: { url: "/elsewhere" } },
      { reply: { url: `${ORIGIN}/home` } },
    ])
  })

  it("guards: inline, named with params (a value or a mapper), across levels, and xstate's own (not)", async () => {
    const chooser = setup({
      types: flowTypes<unknown>(),
      guards: {
        is: (_: unknown, params: { want: unknown; got: unknown }) => params.want === params.got,
        odd: ({ event }: { event: FlowEvent }) => Number(event.params.n) % 2 === 1,
      },
    }).createMachine({
      id: "chooser",
      ...flowBase,
      on: { SUBMIT: { guard: ({ event }) => event.params.n === 0, target: ".zero" } },
      states: {
        idle: {
          tags: [AWAITING_INPUT],
          on: {
            SUBMIT: [
              { guard: ({ event }) => event.params.n === 1, target: "one" },
              { guard: { type: "is", params: { want: 2, got: 3 } }, target: "never" },
              { guard: { type: "is", params: ({ event }) => ({ want: 3, got: event.params.n }) }, target: "three" },
              { guard: "odd", actions: assign({ pending: ({ event }) => event.params.n }) },
            ],
            STEP: [{ guard: not("odd"), target: "even" }],
          },
        },
        zero: { type: "final" },
        one: { type: "final" },
        never: { type: "final" },
        three: { type: "final" },
        even: { type: "final" },
      },
    })
    const ends: unknown[] = []
    for (const [type, n] of [...[0, 1, 2, 3, 5, 7].map((n) => ["SUBMIT", n] as const), ["STEP", 2] as const, ["STEP", 3] as const]) {
      const ran = await request(chooser, undefined, { type, params: { n }, now: 1 }, {})
      ends.push(ran.taken ? [ran.value, ran.context?.pending ?? null] : "not taken")
    }
    expect(ends).toEqual([
      ["zero", null],
      ["one", null],
      "not taken",
      ["three", null],
      ["idle", 5],
      ["idle", 7],
      ["even", null],
      "not taken",
    ])
  })

  it("a guard that throws fails the request with xstate's error naming the guard", async () => {
    const throwing = setup({
      types: flowTypes(),
      guards: {
        broken: () => {
          throw new Error("no verdict")
        },
      },
    }).createMachine({
      id: "throwing",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: [{ guard: "broken", target: "done" }] } }, done: { type: "final" } },
    })
    await expect(request(throwing, undefined, submit, {})).rejects.toThrow(/Unable to evaluate guard 'broken'.*no verdict/s)
  })

  it("an effect error the machine does not handle fails the run with that error", async () => {
    const bare = setup({ types: flowTypes(), actors: { check: declareEffect<boolean, null>("check") } }).createMachine({
      id: "bare",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "checking" } }, checking: { invoke: { src: "check", input: null } } },
    })
    const failure = new CredentialsSignin()
    const ran = await request(bare, undefined, submit, { check: () => Promise.reject(failure) })
    expect(ran).toMatchObject({ status: "error", error: failure })
  })

  it("a persisted snapshot the machine cannot restore fails the start of the run, never as an unhandled error", async () => {
    const options = await runOptions({ status: "active", value: "nowhere", context: {} })
    expect(() => new FlowRun(scripted(confirmMachine(), tail, []), options)).toThrow(TypeError)
    // xstate reports an error nobody listens to on a timer: give it the chance to surface
    await new Promise((resolve) => setTimeout(resolve, 20))
  })
})

describe("inspection and production run the same runner", () => {
  /** A flow's requests through `runMachine`, with or without an inspector: each resting snapshot and the end. */
  const now = Date.now()
  /** The context of a request at the same clock for both scripts. */
  const at = async (...args: Parameters<typeof contextOf>): Promise<RequestContext> => ({ ...(await contextOf(...args)), now })
  async function script(inspect?: (event: unknown) => void) {
    const rested: unknown[] = []
    const first = await at("/auth/probe/two-step", { password: "pw", callbackUrl: "/home" })
    const started = await loadFlow(first, flow, start, storeIO(first, flow))
    const atConfirm = await runMachine(first, flow, start, started, inspect)
    let cookie = ""
    let outcome = atConfirm
    for (const code of ["000000", "123456"]) {
      if (outcome.status !== "resting") throw new Error("the flow should rest")
      rested.push(outcome.snapshot)
      const [saved] = await persistFlow(first, flow, started, outcome, storeIO(first, flow))
      cookie = `${saved?.name}=${saved?.value}`
      const ctx = await at("/auth/probe/two-step", { step: "confirm", code }, cookie)
      outcome = await runMachine(ctx, flow, step, await loadFlow(ctx, flow, step, storeIO(ctx, flow)), inspect)
    }
    return { rested, end: outcome }
  }

  it("an inspected run and an uninspected one of the same flow and requests persist the same snapshots", async () => {
    const seen: unknown[] = []
    const [plain, inspected] = [await script(), await script((event) => seen.push(event))]
    expect(seen.length).toBeGreaterThan(0)
    expect(plain.rested).toHaveLength(2)
    expect(inspected.rested).toEqual(plain.rested)
    expect(JSON.stringify(inspected.rested)).toBe(JSON.stringify(plain.rested))
    expect(plain.rested).toMatchObject([
      { status: "active", value: "confirm", context: { pending: { tries: 0 } } },
      { status: "active", value: "confirm", context: { pending: { tries: 1 } } },
    ])
    // the end's session cookie is sealed with a fresh IV: the rest of it is the same
    const endOf = ({ end }: typeof plain) =>
      end.status === "ended" && end.output.ok ? { state: end.state, reply: { ...end.output.reply, cookies: undefined } } : end
    expect(endOf(inspected)).toEqual(endOf(plain))
    expect(plain.end).toMatchObject({ status: "ended", output: { ok: true, reply: { url: `${ORIGIN}/home` } } })
  })
})

/**
 * What the engine relies on in xstate (a persisted snapshot resumes where it was; an invoked promise
 * actor's outcome arrives as `xstate.done.actor.<id>` / `xstate.error.actor.<id>`): a future xstate that
 * changes either fails here first.
 */
describe("xstate keeps what the engine relies on", () => {
  const machine = setup({
    types: {} as { context: { seen: string[] }; events: { type: "GO"; fail: boolean } },
    actors: {
      work: fromPromise(async ({ input }: { input: { fail: boolean } }) => (input.fail ? Promise.reject(new Error("no")) : "out")),
    },
  }).createMachine({
    id: "pin",
    context: { seen: [] },
    initial: "idle",
    states: {
      idle: { on: { GO: { target: "working", actions: assign({ seen: ({ context }) => [...context.seen, "go"] }) } } },
      working: {
        invoke: {
          id: "job",
          src: "work",
          input: ({ event }) => ({ fail: event.type === "GO" && event.fail }),
          onDone: { target: "idle", actions: assign({ seen: ({ context, event }) => [...context.seen, `${event.type}:${event.output}`] }) },
          onError: {
            target: "idle",
            actions: assign({ seen: ({ context, event }) => [...context.seen, `${event.type}:${(event.error as Error).message}`] }),
          },
        },
      },
    },
  })

  /** Runs the actor until it is back at `idle`; its persisted snapshot (as JSON, as a store keeps it). */
  async function untilIdle(actor: ReturnType<typeof createActor<typeof machine>>): Promise<Snapshot<unknown>> {
    await new Promise<void>((resolve) => {
      const sub = actor.subscribe((s) => {
        if (s.value === "idle") {
          sub.unsubscribe()
          resolve()
        }
      })
    })
    return JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))
  }

  it("an invoked promise actor's result arrives as xstate.done.actor.<id>, its error as xstate.error.actor.<id>", async () => {
    const actor = createActor(machine).start()
    actor.send({ type: "GO", fail: false })
    const afterDone = await untilIdle(actor)
    actor.send({ type: "GO", fail: true })
    await untilIdle(actor)
    expect(actor.getSnapshot().context.seen).toEqual(["go", "xstate.done.actor.job:out", "go", "xstate.error.actor.job:no"])
    actor.stop()
    expect(afterDone).toMatchObject({ status: "active", value: "idle", context: { seen: ["go", "xstate.done.actor.job:out"] } })
  })

  it("a persisted snapshot restored with createActor(machine, { snapshot }) resumes at the same state and context", async () => {
    const first = createActor(machine).start()
    first.send({ type: "GO", fail: false })
    const persisted = await untilIdle(first)
    first.stop()
    const resumed = createActor(machine, { snapshot: persisted }).start()
    expect(resumed.getSnapshot().value).toBe("idle")
    expect(resumed.getSnapshot().context).toEqual({ seen: ["go", "xstate.done.actor.job:out"] })
    expect(JSON.parse(JSON.stringify(resumed.getPersistedSnapshot()))).toEqual(persisted)
    resumed.send({ type: "GO", fail: true })
    await untilIdle(resumed)
    expect(resumed.getSnapshot().context.seen).toEqual(["go", "xstate.done.actor.job:out", "go", "xstate.error.actor.job:no"])
    resumed.stop()
  })
})
