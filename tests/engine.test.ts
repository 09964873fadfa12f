/**
 * The engine's four parts, each on its own, with a real request context (captured from a request the
 * runtime routed) and the confirm flow written on the public kit: load, run, persist, respond.
 */
import { describe, expect, it } from "vitest"
import { type AnyMachineSnapshot, type AnyStateMachine, assign, createActor, createEmptyActor, fromCallback, not, setup } from "xstate"
import {
  AWAITING_INPUT,
  declareEffect,
  defineFlow,
  effect,
  type FlowEvent,
  type GateResult,
  flowBase,
  flowTypes,
  type Identity,
  type RequestContext,
} from "authchart/flow"
import { CredentialsSignin, defineStep, extendFlow } from "../src/index.js"
import { credentialsMachine } from "../src/machines/credentials.js"
import { startActorRun } from "../src/runtime/actor-run.js"
import { compiledOf } from "../src/runtime/machine-compile.js"
import { persistedSnapshot, restoredSnapshot } from "../src/runtime/machine-persist.js"
import { directRunnable, startDirectRun } from "../src/runtime/machine-run.js"
import { watchedRuns } from "../src/runtime/run-deadlines.js"
import type { AuthConfig, FlowEnvelope } from "../src/index.js"
import { eventParams, persistFlow, runMachine } from "../src/runtime/engine.js"
import { loadFlow, storeIO } from "../src/runtime/flow-load.js"
import { discoveryCache } from "../src/runtime/effects/oauth-server.js"
import { respondFlow } from "../src/runtime/flow-respond.js"
import { callbackUrlNow, defaultRedirect, resolveCallbackUrl } from "../src/runtime/callback-url.js"
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
  ])("a start's callback URL (%s, cookie %s): the built-in redirect callback, answered at once, gives what the general path gives", async (callbackUrl, cookie) => {
    const form = { password: "pw", ...(callbackUrl === undefined ? {} : { callbackUrl }) }
    const builtIn = await contextOf("/auth/probe/two-step", form, cookie)
    // the same callback given by the app: resolved on the general (awaited) path
    const own = await contextOf("/auth/probe/two-step", form, cookie, { callbacks: { redirect: (p) => defaultRedirect(p) } })
    expect(callbackUrlNow(own)).toBeUndefined()
    const fast = callbackUrlNow(builtIn)
    expect(fast).toEqual(await resolveCallbackUrl(own))
    expect(await resolveCallbackUrl(builtIn)).toEqual(fast)
    // loadFlow takes the fast path (no promise) only with the built-in callback, with the same result
    const loading = loadFlow(builtIn, flow, start, storeIO(builtIn, flow))
    expect(loading).not.toBeInstanceOf(Promise)
    const general = loadFlow(own, flow, start, storeIO(own, flow))
    expect(general).toBeInstanceOf(Promise)
    const [a, b] = [await loading, await general]
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
 * The engine runs a flow's machine directly (machine-run.ts, machine-step.ts) unless an inspector
 * watches it (a full xstate actor, actor-run.ts). Both must be the same machine: the same states,
 * contexts, outputs, effect calls and persisted snapshots, and a flow persisted by one resumes on the other.
 */
describe("the direct runner and xstate's actor run the same machine", () => {
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
  const runners = { direct: startDirectRun, actor: startActorRun }
  type Runner = keyof typeof runners

  /** One request on `runner`: what it ended or rested at, and the effects it called. */
  async function request(
    runner: Runner,
    machine: AnyStateMachine,
    persisted: unknown,
    event: FlowEvent,
    answers: Record<string, (input: never) => unknown>,
    atOnce = false,
  ) {
    const calls: Calls = []
    const provided = scripted(machine, answers, calls, atOnce)
    expect(directRunnable(provided)).toBe(true)
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    const run = runners[runner](provided, { persisted, input: { provider: "two-step", now: 1 }, ctx, timeout: 5_000 })
    try {
      const after = await run.send(event)
      if (!after) return { taken: false, calls }
      const { value, status, context, output, error } = after
      const saved = status === "active" ? JSON.parse(JSON.stringify(run.persist(after))) : undefined
      return { taken: true, value, status, context, output, error, persisted: saved, calls }
    } finally {
      run.stop()
    }
  }
  const submit: FlowEvent = { type: "SUBMIT", params: { password: "pw" }, now: 1 }
  /** A thenable that is not a promise, whose `then` runs `then`. */
  const thenable = (then: (ok: (value: unknown) => void) => void): unknown => ({ then })

  it.each([
    ["a sign-in to the end", { ...tail, authorize: () => identity }],
    [
      "a sign-in the signIn callback redirects elsewhere",
      { ...tail, authorize: () => identity, signInGate: () => ({ allow: false, redirect: "/x" }) },
    ],
    ["a sign-in whose authorize throws", { ...tail, authorize: () => Promise.reject(new CredentialsSignin()) }],
    [
      "a sign-in whose session cannot be issued",
      { ...tail, authorize: () => identity, issueSession: () => Promise.reject(new Error("down")) },
    ],
  ])("credentials: %s", async (_name, answers) => {
    const [direct, actor] = await Promise.all([
      request("direct", credentialsMachine, undefined, submit, answers),
      request("actor", credentialsMachine, undefined, submit, answers),
    ])
    expect(direct).toEqual(actor)
    expect(direct.calls.length).toBeGreaterThan(0)
  })

  it.each([
    ["a sign-in to the end", { ...tail, authorize: () => identity }],
    [
      "a sign-in whose authorize throws at once",
      {
        ...tail,
        authorize: () => {
          throw new CredentialsSignin()
        },
      },
    ],
    ["a sign-in whose authorize answers later", { ...tail, authorize: () => Promise.resolve(identity) }],
    ["a sign-in whose authorize answers a thenable", { ...tail, authorize: () => thenable((ok) => ok(identity)) }],
    [
      "a sign-in whose authorize answers a thenable that throws",
      {
        ...tail,
        authorize: () =>
          thenable(() => {
            throw new CredentialsSignin()
          }),
      },
    ],
  ])("credentials, effects that answer at once: %s ends as on the actor", async (_name, answers) => {
    const [direct, actor] = await Promise.all([
      request("direct", credentialsMachine, undefined, submit, answers, true),
      request("actor", credentialsMachine, undefined, submit, answers, true),
    ])
    expect(direct).toEqual(actor)
    expect(direct.calls.length).toBeGreaterThan(0)
  })

  it("a run whose effects all answer at once gives its end without a promise and waits on no deadline", async () => {
    const provided = scripted(credentialsMachine, { ...tail, authorize: () => identity }, [], true)
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    const run = startDirectRun(provided, { persisted: undefined, input: { provider: "two-step", now: 1 }, ctx, timeout: 5_000 })
    const sent = run.send(submit)
    expect(watchedRuns()).toBe(0)
    expect(sent).not.toBeInstanceOf(Promise)
    expect(sent).toMatchObject({ status: "done", output: { ok: true, reply: { url: `${ORIGIN}/home` } } })
    run.stop()
  })

  it("runs waiting on effects that never settle each fail at their own deadline (one timer for all of them); a run that ends is no longer watched", async () => {
    const never = () => new Promise(() => {})
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    const runWith = (authorize: () => unknown, timeout: number) =>
      startDirectRun(scripted(credentialsMachine, { ...tail, authorize }, []), {
        persisted: undefined,
        input: { provider: "two-step", now: 1 },
        ctx,
        timeout,
      })
    // the long deadline is watched first: the short one, set after it, must still fail at its own time
    const long = runWith(never, 600_000)
    const short = runWith(never, 50)
    const ends = runWith(() => identity, 600_000)
    const [longSent, shortSent, endsSent] = [long.send(submit), short.send(submit), ends.send(submit)]
    expect(watchedRuns()).toBe(3)
    await expect(endsSent).resolves.toMatchObject({ status: "done" })
    await expect(shortSent).rejects.toMatchObject({ type: "FlowStateError", message: "The sign-in step did not finish within 50 ms." })
    expect(watchedRuns()).toBe(1)
    long.stop()
    await expect(longSent).rejects.toMatchObject({ type: "FlowStateError" })
    expect(watchedRuns()).toBe(0)
    for (const run of [short, ends]) run.stop()
  })

  it("a flow that rests (re-entering its resting state on a wrong code) persists the same snapshot and resumes across runners", async () => {
    const machine = confirmMachine()
    const answers = { ...tail, authorize: () => identity }
    const started = await request("direct", machine, undefined, submit, answers)
    expect(started).toEqual(await request("actor", machine, undefined, submit, answers))
    expect(started).toMatchObject({ status: "active", value: "confirm", context: { pending: { tries: 0 } } })

    const wrong: FlowEvent = { type: "STEP", params: { code: "000000" }, now: 2 }
    const right: FlowEvent = { type: "STEP", params: { code: "123456" }, now: 3 }
    for (const [from, to] of [
      ["direct", "actor"],
      ["actor", "direct"],
    ] as const) {
      const once = await request(from, machine, started.persisted, wrong, answers)
      expect(once).toEqual(await request(to, machine, started.persisted, wrong, answers))
      expect(once).toMatchObject({ value: "confirm", context: { pending: { tries: 1 } } })
      // persisted by one runner, resumed by the other
      const ended = await request(to, machine, once.persisted, right, answers)
      expect(ended).toEqual(await request(from, machine, once.persisted, right, answers))
      expect(ended).toMatchObject({ status: "done", output: { ok: true, reply: { url: `${ORIGIN}/home` } } })
    }
    // an event the resting state does not take changes nothing, on either runner
    for (const runner of ["direct", "actor"] as const) {
      expect(await request(runner, machine, started.persisted, submit, answers)).toEqual({ taken: false, calls: [] })
    }
  })

  it("a flow extended with a step (nested states, a transition by id across levels) runs the same", async () => {
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
    const atStart = await request("actor", extended, undefined, submit, answers)
    const confirmed = await request("direct", extended, atStart.persisted, right, answers)
    expect(confirmed).toEqual(await request("actor", extended, atStart.persisted, right, answers))
    expect(confirmed).toMatchObject({ value: { terms: "waiting" }, context: { steps: { terms: { data: { shown: true } } } } })
    const answer: FlowEvent = { type: "STEP", params: { accept: "yes" }, now: 3 }
    const retried = await request("direct", extended, confirmed.persisted, answer, answers)
    expect(retried).toEqual(await request("actor", extended, confirmed.persisted, answer, answers))
    expect(retried).toMatchObject({
      value: { terms: "waiting" },
      context: { steps: { terms: { attempts: 1 } }, reply: { data: { message: "again" } } },
    })
    accepted = true
    const passed = await request("actor", extended, retried.persisted, answer, answers)
    expect(passed).toEqual(await request("direct", extended, retried.persisted, answer, answers))
    expect(passed).toMatchObject({ status: "done", output: { ok: true } })
  })

  it("a resting snapshot is restored and persisted as xstate restores and persists it; any other kind is left to xstate", async () => {
    const extended = extendFlow(defineFlow({ id: "confirm", machine: confirmMachine(), routes: flow.routes }), [
      defineStep({ id: "terms", page: () => ({ title: "Terms", fields: "" }), submit: () => true }),
    ]).machine
    const answers = {
      ...tail,
      authorize: () => identity,
      "terms.enter": () => ({ skip: false, data: { shown: true } }),
      "terms.submit": () => ({ result: "pass", data: {} }),
    }
    const host = createEmptyActor()
    const scope = { self: host, id: host.id, sessionId: host.sessionId, system: host.system } as never
    const right: FlowEvent = { type: "STEP", params: { code: "123456" }, now: 2 }
    const atConfirm = (await request("actor", extended, undefined, submit, answers)).persisted as Record<string, unknown>
    const atTerms = (await request("actor", extended, atConfirm, right, answers)).persisted as Record<string, unknown>
    expect(atTerms.value).toEqual({ terms: "waiting" })
    const machine = scripted(extended, answers, [])
    const c = compiledOf(machine)
    if (!c) throw new Error("the direct runner takes this machine")
    const copy = (persisted: Record<string, unknown>) => JSON.parse(JSON.stringify(persisted))
    const fields = (s: AnyMachineSnapshot) => ({ ...s, tags: [...s.tags], _nodes: [...s._nodes] })
    for (const persisted of [atConfirm, atTerms]) {
      const direct = restoredSnapshot(c, machine, copy(persisted))
      const xstate = machine.restoreSnapshot?.(copy(persisted), scope) as AnyMachineSnapshot
      if (!direct) throw new Error("restored directly")
      expect(fields(direct)).toEqual(fields(xstate))
      expect(direct.machine).toBe(machine)
      expect(JSON.stringify(persistedSnapshot(direct))).toBe(JSON.stringify(machine.getPersistedSnapshot(xstate)))
      expect(JSON.stringify(persistedSnapshot(direct))).toBe(JSON.stringify(persisted))
    }
    // left to xstate: a child actor, a history, a state not named whole or not there, an actor in the context
    const child = { snapshot: { status: "active" }, src: "authorize", systemId: undefined }
    for (const odd of [
      { ...atTerms, children: { authorize: child } },
      { ...atTerms, historyValue: { "confirm.terms": [{ id: "confirm.terms.waiting" }] } },
      { ...atTerms, value: "terms" },
      { ...atTerms, value: { terms: "nowhere" } },
      { ...atTerms, value: "constructor" },
      { ...atTerms, context: { ...(atTerms.context as object), ref: { xstate$$type: 1, id: "authorize" } } },
    ]) {
      expect(restoredSnapshot(c, machine, copy(odd))).toBeUndefined()
    }
    const restored = restoredSnapshot(c, machine, copy(atTerms)) as AnyMachineSnapshot
    const actor = createActor(setup({}).createMachine({}))
    expect(persistedSnapshot({ ...restored, context: { ...restored.context, deep: { ref: actor } } })).toBeUndefined()
    expect(persistedSnapshot(Object.assign({ extra: 1 }, restored))).toBeUndefined()
    expect(persistedSnapshot({ ...restored, children: { authorize: actor } })).toBeUndefined()
  })

  it("a start is xstate's initial snapshot (value, tags, context, persisted form), also when a state entered at the start runs an action", async () => {
    const entering = setup({ types: flowTypes() }).createMachine({
      id: "entering",
      ...flowBase,
      entry: assign({ steps: () => ({ seen: { attempts: 1 } }) }),
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "done" } }, done: { type: "final" } },
    })
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    for (const machine of [credentialsMachine, confirmMachine(), entering]) {
      const provided = scripted(machine, { ...tail, authorize: () => identity }, [])
      expect(directRunnable(provided)).toBe(true)
      const options = { persisted: undefined, input: { provider: "two-step", now: 7 }, ctx, timeout: 5_000 }
      const [direct, actor] = [startDirectRun(provided, options), startActorRun(provided, options)]
      try {
        const seen = (run: typeof direct) => ({
          value: run.before.value,
          status: run.before.status,
          resting: run.before.hasTag(AWAITING_INPUT),
          context: run.before.context,
          persisted: JSON.parse(JSON.stringify(run.persist(run.before))),
        })
        expect(seen(direct)).toEqual(seen(actor))
        expect(seen(direct)).toMatchObject({
          value: "idle",
          status: "active",
          resting: true,
          context: { provider: "two-step", startedAt: 7 },
        })
      } finally {
        direct.stop()
        actor.stop()
      }
    }
  })

  it("one machine, request after request: a transition a guard chooses is chosen again each time, never remembered", async () => {
    let verdict: GateResult = { allow: true }
    const provided = scripted(credentialsMachine, { ...tail, authorize: () => identity, signInGate: () => verdict }, [])
    const ctx = { ...(await contextOf("/auth/probe/two-step")), callbackUrl: `${ORIGIN}/home` }
    const outputs: unknown[] = []
    for (const next of [{ allow: true }, { allow: false, redirect: "/elsewhere" }, { allow: true }] as GateResult[]) {
      verdict = next
      const run = startDirectRun(provided, { persisted: undefined, input: { provider: "two-step", now: 1 }, ctx, timeout: 5_000 })
      outputs.push((await run.send(submit))?.output)
      run.stop()
    }
    expect(outputs).toMatchObject([
      { reply: { url: `${ORIGIN}/home` } },
      { reply: { url: "/elsewhere" } },
      { reply: { url: `${ORIGIN}/home` } },
    ])
  })

  it("guards: inline, named with params (a value or a mapper), across levels, and xstate's own (not): the direct runner chooses as xstate", async () => {
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
      const event: FlowEvent = { type, params: { n }, now: 1 }
      const direct = await request("direct", chooser, undefined, event, {})
      expect(direct, `${type} ${n}`).toEqual(await request("actor", chooser, undefined, event, {}))
      ends.push(direct.taken ? [direct.value, direct.context?.pending ?? null] : "not taken")
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

  it("an inline builtin guard is left to xstate, which calls its check: its function alone answers false (xstate's production build)", async () => {
    // shaped as xstate's production `not(...)`: the function answers false, `check` gives the verdict
    const builtin = Object.assign(() => false, { check: () => true, type: "test.builtin" })
    const machine = setup({ types: flowTypes() }).createMachine({
      id: "builtin",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: [{ guard: builtin, target: "done" }] } }, done: { type: "final" } },
    })
    const direct = await request("direct", machine, undefined, submit, {})
    expect(direct).toEqual(await request("actor", machine, undefined, submit, {}))
    expect(direct.value).toBe("done")
  })

  it("a guard that throws: the direct runner fails as it did on xstate's choice, with xstate's error naming the guard", async () => {
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
    await expect(request("direct", throwing, undefined, submit, {})).rejects.toThrow(/Unable to evaluate guard 'broken'.*no verdict/s)
  })

  it("an effect error the machine does not handle fails the run the same way", async () => {
    const bare = setup({ types: flowTypes(), actors: { check: declareEffect<boolean, null>("check") } }).createMachine({
      id: "bare",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "checking" } }, checking: { invoke: { src: "check", input: null } } },
    })
    const failure = new CredentialsSignin()
    const [direct, actor] = await Promise.all(
      (["direct", "actor"] as const).map((r) => request(r, bare, undefined, submit, { check: () => Promise.reject(failure) })),
    )
    expect(direct).toEqual(actor)
    expect(direct).toMatchObject({ status: "error", error: failure })
  })

  it("machines with what the direct runner does not take (delays, other actions, actor logic) run on the actor", () => {
    const base = setup({ types: flowTypes() })
    const delayed = base.createMachine({ id: "d", ...flowBase, states: { idle: { after: { 10: "done" } }, done: { type: "final" } } })
    const logging = base.createMachine({ id: "l", ...flowBase, states: { idle: { entry: () => {}, tags: [AWAITING_INPUT] } } })
    const callback = setup({ types: flowTypes(), actors: { tick: fromCallback(() => {}) } }).createMachine({
      id: "c",
      ...flowBase,
      states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "ticking" } }, ticking: { invoke: { src: "tick" } } },
    })
    for (const machine of [delayed, logging, callback]) expect(directRunnable(machine)).toBe(false)
    // an xstate whose resolved snapshots do not list their state nodes (`_nodes`) as 5.33 does: the actor
    const taken = scripted(credentialsMachine, { ...tail, authorize: () => identity }, [])
    const resolve = taken.resolveState.bind(taken)
    taken.resolveState = (config) => ({ ...resolve(config), _nodes: undefined as never })
    expect(directRunnable(taken)).toBe(false)
    // the tail's effects are still the declarations (not `effect()`s) until the runtime provides them
    expect(directRunnable(credentialsMachine.provide({ actors: { authorize: effect(async () => identity) } }))).toBe(false)
    expect(directRunnable(scripted(credentialsMachine, { ...tail, authorize: () => identity }, []))).toBe(true)
  })
})
