/**
 * The credentials machine, driven with xstate's pure `initialTransition`/`transition`: no I/O, no actors
 * run; effect results arrive as the `xstate.done.actor.*` / `xstate.error.actor.*` events.
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, createActor, fromPromise, initialTransition, transition } from "xstate"
import { credentialsMachine } from "../src/machines/credentials.js"
import { AWAITING_INPUT, type GateResult, type Identity, type Issued } from "../src/machines/types.js"

const input = { provider: "credentials", now: 1_700_000_000_000 }
const identity: Identity = {
  user: { id: "1", name: "Alice" },
  account: { provider: "credentials", providerAccountId: "1", type: "credentials" },
}
// Actor completion events are internal to xstate; the pure API still accepts them.
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as AnyEventObject as never
const failed = (id: string, error: unknown) => ({ type: `xstate.error.actor.${id}`, error }) as AnyEventObject as never

function submitted() {
  const [start] = initialTransition(credentialsMachine, input)
  const [next] = transition(credentialsMachine, start, { type: "SUBMIT", params: { password: "pw" }, now: input.now })
  return next
}

describe("credentials machine", () => {
  it("starts idle, waiting for input, with nothing but provider and time in context", () => {
    const [start] = initialTransition(credentialsMachine, input)
    expect(start.value).toBe("idle")
    expect(start.hasTag(AWAITING_INPUT)).toBe(true)
    expect(start.context).toEqual({
      provider: "credentials",
      startedAt: input.now,
      identity: null,
      reply: null,
      output: null,
      pending: null,
      steps: {},
    })
  })

  it("SUBMIT runs authorize and never stores the submitted fields", () => {
    const next = submitted()
    expect(next.value).toBe("authorizing")
    expect(JSON.stringify(next.context)).not.toContain("pw")
  })

  it("ignores events other than SUBMIT while idle", () => {
    const [start] = initialTransition(credentialsMachine, input)
    const [next] = transition(credentialsMachine, start, { type: "CALLBACK", params: {}, now: 0 })
    expect(next.value).toBe("idle")
  })

  it("authorize → gate → issuing → done with a redirect carrying the session cookies", () => {
    let s = submitted()
    ;[s] = transition(credentialsMachine, s, done("authorize", identity))
    expect(s.value).toBe("gate")
    expect(s.context.identity).toEqual(identity)
    ;[s] = transition(credentialsMachine, s, done("signInGate", { allow: true }))
    expect(s.value).toBe("linking")
    ;[s] = transition(credentialsMachine, s, done("linkIdentity", { ...identity, isNewUser: true }))
    expect(s.value).toBe("issuing")
    expect(s.context.identity?.isNewUser).toBe(true)
    ;[s] = transition(credentialsMachine, s, done("issueSession", { redirect: "http://app.test/", cookies: ["c"] }))
    expect(s.value).toBe("done")
    expect(s.status).toBe("done")
    expect(s.output).toEqual({ ok: true, reply: { type: "redirect", url: "http://app.test/", cookies: ["c"] } })
  })

  it("the submitted credentials reach the signIn gate, then leave the context (a step that rests after it never seals them)", () => {
    let s = submitted()
    ;[s] = transition(credentialsMachine, s, done("authorize", { ...identity, credentials: { password: "pw" } }))
    expect(s.value).toBe("gate")
    expect(s.context.identity?.credentials).toEqual({ password: "pw" })
    ;[s] = transition(credentialsMachine, s, done("signInGate", { allow: true }))
    expect(s.value).toBe("linking")
    expect(s.context.identity).toEqual(identity)
    expect(JSON.stringify(s.context)).not.toContain("pw")
  })

  it("a signIn redirect string ends the flow without a session", () => {
    let s = submitted()
    ;[s] = transition(credentialsMachine, s, done("authorize", identity))
    ;[s] = transition(credentialsMachine, s, done("signInGate", { allow: false, redirect: "http://app.test/later" }))
    expect(s.value).toBe("denied")
    expect(s.output).toEqual({ ok: true, reply: { type: "redirect", url: "http://app.test/later" } })
  })

  it.each(["authorize", "signInGate", "linkIdentity", "issueSession"])("an error from %s ends in failed with that error", (id) => {
    let s = submitted()
    const error = new Error(`${id} broke`)
    if (id !== "authorize") [s] = transition(credentialsMachine, s, done("authorize", identity))
    if (id === "linkIdentity" || id === "issueSession") [s] = transition(credentialsMachine, s, done("signInGate", { allow: true }))
    if (id === "issueSession") [s] = transition(credentialsMachine, s, done("linkIdentity", identity))
    ;[s] = transition(credentialsMachine, s, failed(id, error))
    expect(s.value).toBe("failed")
    expect(s.output).toEqual({ ok: false, error })
  })

  it("runs end to end with provided effects (as the runtime does)", async () => {
    const machine = credentialsMachine.provide({
      actors: {
        authorize: fromPromise<Identity, { params: Record<string, unknown> }>(async () => identity),
        signInGate: fromPromise<GateResult, Identity>(async () => ({ allow: true })),
        linkIdentity: fromPromise<Identity, Identity>(async ({ input }) => input),
        issueSession: fromPromise<Issued, Identity>(async () => ({ redirect: "http://app.test/", cookies: [] })),
      },
    })
    const actor = createActor(machine, { input }).start()
    actor.send({ type: "SUBMIT", params: {}, now: input.now })
    await new Promise<void>((resolve) => actor.subscribe({ complete: resolve }))
    expect(actor.getSnapshot().output).toEqual({ ok: true, reply: { type: "redirect", url: "http://app.test/", cookies: [] } })
  })

  it("unprovided effects fail the flow instead of hanging", async () => {
    const actor = createActor(credentialsMachine, { input }).start()
    actor.send({ type: "SUBMIT", params: {}, now: input.now })
    await new Promise<void>((resolve) => actor.subscribe({ complete: resolve }))
    const output = actor.getSnapshot().output
    expect(output?.ok).toBe(false)
  })
})
