/**
 * The step-up machine, driven with xstate's pure `initialTransition`/`transition`: no I/O; effect
 * results arrive as `xstate.done.actor.*` / `xstate.error.actor.*` events. It rests only on its page,
 * keeps no submitted password or code, and ends in `done` (a redirect with the session's cookies),
 * `signIn` (nobody to re-authenticate) or `failed`.
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, initialTransition, transition } from "xstate"
import { type StepUpPrepared, stepUpMachine } from "../src/machines/step-up.js"
import { AWAITING_INPUT } from "../src/machines/types.js"

const input = { provider: "reauth", now: 1_700_000_000_000 }
// Actor completion events are internal to xstate; the pure API still accepts them.
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as AnyEventObject as never
const failed = (id: string, error: unknown) => ({ type: `xstate.error.actor.${id}`, error }) as AnyEventObject as never
const asked: StepUpPrepared = {
  ask: true,
  pending: { userId: "u-1", methods: ["password"], challenge: null },
  page: { methods: ["password"], action: "http://app.test/auth/reauth" },
}

function resting() {
  const [start] = initialTransition(stepUpMachine, input)
  let [s] = transition(stepUpMachine, start, { type: "START", params: {}, now: input.now })
  ;[s] = transition(stepUpMachine, s, done("stepUpPrepare", asked))
  return s
}

describe("step-up machine", () => {
  it("starts idle; START prepares; a signed-in user with a way to prove rests on the reauth page", () => {
    const [start] = initialTransition(stepUpMachine, input)
    expect(start.value).toBe("idle")
    expect(start.hasTag(AWAITING_INPUT)).toBe(true)
    const s = resting()
    expect(s.value).toBe("awaiting")
    expect(s.hasTag(AWAITING_INPUT)).toBe(true)
    expect(s.context.pending).toEqual(asked.ask && asked.pending)
    expect(s.context.reply).toEqual({ type: "page", page: "reauth", data: asked.ask && asked.page })
  })

  it("nobody to re-authenticate: ends in signIn with the redirect", () => {
    const [start] = initialTransition(stepUpMachine, input)
    let [s] = transition(stepUpMachine, start, { type: "START", params: {}, now: input.now })
    ;[s] = transition(stepUpMachine, s, done("stepUpPrepare", { ask: false, redirect: "http://app.test/auth/signin" }))
    expect(s.value).toBe("signIn")
    expect(s.output).toEqual({ ok: true, reply: { type: "redirect", url: "http://app.test/auth/signin" } })
  })

  it("a wrong answer rests again with its message; the password never enters the context", () => {
    let [s] = transition(stepUpMachine, resting(), { type: "PROVE", params: { method: "password", password: "hunter2" }, now: input.now })
    expect(s.value).toBe("checking")
    expect(JSON.stringify(s.context)).not.toContain("hunter2")
    ;[s] = transition(stepUpMachine, s, done("stepUpVerify", { pass: false, message: "Wrong." }))
    expect(s.value).toBe("awaiting")
    expect(s.context.reply).toEqual({ type: "page", page: "reauth", data: { ...(asked.ask ? asked.page : {}), message: "Wrong." } })
  })

  it("a right answer refreshes the proof and ends with the redirect and its cookies", () => {
    let [s] = transition(stepUpMachine, resting(), { type: "PROVE", params: { method: "password" }, now: input.now })
    ;[s] = transition(stepUpMachine, s, done("stepUpVerify", { pass: true }))
    expect(s.value).toBe("refreshing")
    ;[s] = transition(stepUpMachine, s, done("refreshProof", { redirect: "http://app.test/settings", cookies: ["c"] }))
    expect(s.status).toBe("done")
    expect(s.output).toEqual({ ok: true, reply: { type: "redirect", url: "http://app.test/settings", cookies: ["c"] } })
  })

  it("an effect's error ends in failed with that error", () => {
    const error = new Error("refused")
    let [s] = transition(stepUpMachine, resting(), { type: "PROVE", params: {}, now: input.now })
    ;[s] = transition(stepUpMachine, s, failed("stepUpVerify", error))
    expect(s.value).toBe("failed")
    expect(s.output).toEqual({ ok: false, error })
  })

  it("ignores PROVE while idle and START while awaiting", () => {
    const [start] = initialTransition(stepUpMachine, input)
    expect(transition(stepUpMachine, start, { type: "PROVE", params: {}, now: 0 })[0].value).toBe("idle")
    expect(transition(stepUpMachine, resting(), { type: "START", params: {}, now: 0 })[0].value).toBe("awaiting")
  })
})
