/**
 * `npm run bench:machine`: what the machine model costs per request, beside a hand-written equivalent.
 *
 * The same credentials sign-in twice, with effects that do no I/O and answer at once (so only the
 * model is measured): (1) the real `credentialsMachine`, provided once, driven as the engine drives it
 * (create the actor, start, send the one event, wait until it rests or ends, read the output); (2) the
 * same four steps written as plain async code. And the resume of a resting flow: restore a persisted
 * snapshot, send, run to rest, persist again (`getPersistedSnapshot` + JSON), against a hand-written
 * resume that parses, checks and writes the same state. The difference per operation is the model's
 * overhead. CPU time (process.cpuUsage) over many iterations; the best of several rounds is reported.
 * Knobs: BENCH_MACHINE_ITERATIONS (per round, default 20000), BENCH_MACHINE_ROUNDS (default 5).
 * `--json` prints the results as JSON.
 */
import { type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, assign, createActor, setup } from "xstate"
import { credentialsMachine } from "../src/machines/credentials.js"
import { flowTypes, initialContext } from "../src/machines/setup.js"
import { bindEffectContext, effect } from "../src/runtime/effects/effect.js"
import type { EffectContext } from "../src/runtime/flow.js"
import { AWAITING_INPUT, type FlowOutput, type GateResult, type Identity, type Issued } from "../src/machines/types.js"

const ITERATIONS = Number(process.env.BENCH_MACHINE_ITERATIONS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_MACHINE_ROUNDS ?? 5)

const IDENTITY: Identity = {
  user: { id: "1", name: "Bench", email: "bench@example.test" },
  account: { providerAccountId: "1", type: "credentials", provider: "credentials" },
}
const ISSUED: Issued = { redirect: "http://127.0.0.1/dashboard", cookies: [] }
const EVENT = { type: "SUBMIT" as const, params: { username: "bench", password: "bench" }, now: 0 }

const authorize = async (params: Record<string, unknown>): Promise<Identity> => {
  if (params.username !== "bench") throw new Error("wrong user")
  return IDENTITY
}
const signInGate = async (_identity: Identity): Promise<GateResult> => ({ allow: true })
const linkIdentity = async (identity: Identity) => identity
const issueSession = async (_identity: Identity) => ISSUED

// effects made as the runtime makes them (`effect()`: the request context looked up from the actor system)
const providedCredentials = credentialsMachine.provide({
  actors: {
    authorize: effect((_ctx, input: { params: Record<string, unknown> }) => authorize(input.params)),
    signInGate: effect((_ctx, input: Identity) => signInGate(input)),
    linkIdentity: effect((_ctx, input: Identity) => linkIdentity(input)),
    issueSession: effect((_ctx, input: Identity) => issueSession(input)),
  },
})
const EFFECT_CONTEXT = {} as EffectContext

/** A flow that rests: `idle` → `step` (rests, keeps a counter) → `done` on the second SUBMIT. */
const restingMachine = setup({ types: flowTypes() }).createMachine({
  id: "resting",
  initial: "idle",
  context: ({ input }) => initialContext(input),
  states: {
    idle: { tags: [AWAITING_INPUT], on: { SUBMIT: { target: "step" } } },
    step: {
      tags: [AWAITING_INPUT],
      entry: assign({ steps: ({ context }) => ({ totp: { attempts: (context.steps.totp?.attempts ?? 0) + 1 } }) }),
      on: { SUBMIT: { target: "step", reenter: true } },
    },
  },
})

/** The engine's wait: resolves once the actor rests or ends. */
function settle(actor: AnyActorRef): Promise<AnyMachineSnapshot> {
  const restful = (s: AnyMachineSnapshot) => s.status !== "active" || s.hasTag(AWAITING_INPUT)
  const now = actor.getSnapshot() as AnyMachineSnapshot
  if (restful(now)) return Promise.resolve(now)
  return new Promise((resolve) => {
    const sub = actor.subscribe((s) => {
      if (restful(s as AnyMachineSnapshot)) {
        sub.unsubscribe()
        resolve(s as AnyMachineSnapshot)
      }
    })
  })
}

async function machineSignIn(machine: AnyStateMachine): Promise<FlowOutput> {
  const actor = createActor(machine, { input: { provider: "credentials", now: 0 } })
  bindEffectContext(actor.system, EFFECT_CONTEXT)
  actor.start()
  actor.send(EVENT)
  const after = await settle(actor)
  actor.stop()
  return after.output as FlowOutput
}

async function handSignIn(): Promise<FlowOutput> {
  const identity = await authorize(EVENT.params)
  const gate = await signInGate(identity)
  if (!gate.allow) return { ok: true, reply: { type: "redirect", url: "" } }
  const linked = await linkIdentity(identity)
  const issued = await issueSession(linked)
  return { ok: true, reply: { type: "redirect", url: issued.redirect, cookies: issued.cookies } }
}

const restingStart = (() => {
  const actor = createActor(restingMachine, { input: { provider: "credentials", now: 0 } })
  actor.start()
  actor.send(EVENT)
  const persisted = JSON.stringify(actor.getPersistedSnapshot())
  actor.stop()
  return persisted
})()

async function machineResume(): Promise<string> {
  const actor = createActor(restingMachine, { snapshot: JSON.parse(restingStart), input: { provider: "credentials", now: 0 } })
  actor.start()
  actor.send(EVENT)
  await settle(actor)
  const out = JSON.stringify(actor.getPersistedSnapshot())
  actor.stop()
  return out
}

const handStart = JSON.stringify({ state: "step", attempts: 1 })
async function handResume(): Promise<string> {
  const saved = JSON.parse(handStart) as { state: string; attempts: number }
  if (saved.state !== "step") throw new Error("not resting")
  return JSON.stringify({ state: "step", attempts: saved.attempts + 1 })
}

/** One machine-driven credentials sign-in (for instruction counts under callgrind). */
export const signInOnce = (): Promise<FlowOutput> => machineSignIn(providedCredentials)

/** CPU µs per call of `op`: the best (least disturbed) of ROUNDS rounds of ITERATIONS calls. */
async function cpuPerOp(op: () => Promise<unknown>): Promise<{ best: number; median: number }> {
  for (let i = 0; i < 2000; i++) await op()
  const rounds: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage()
    for (let i = 0; i < ITERATIONS; i++) await op()
    const used = process.cpuUsage(before)
    rounds.push((used.user + used.system) / ITERATIONS)
  }
  rounds.sort((a, b) => a - b)
  return { best: rounds[0] as number, median: rounds[rounds.length >> 1] as number }
}

export interface MachineBench {
  signIn: { machine: { best: number; median: number }; hand: { best: number; median: number }; overheadUs: number }
  resume: { machine: { best: number; median: number }; hand: { best: number; median: number }; overheadUs: number }
  iterations: number
  rounds: number
}

/** Runs both comparisons; checks first that the machine and the hand-written code give the same answer. */
export async function benchMachine(): Promise<MachineBench> {
  const [viaMachine, byHand] = [await machineSignIn(providedCredentials), await handSignIn()]
  if (JSON.stringify(viaMachine) !== JSON.stringify(byHand)) {
    throw new Error(`machine and hand-written sign-in disagree: ${JSON.stringify(viaMachine)} vs ${JSON.stringify(byHand)}`)
  }
  const resumed = JSON.parse(await machineResume()) as { context: { steps: { totp: { attempts: number } } } }
  if (resumed.context.steps.totp.attempts !== 2) throw new Error("the resumed machine did not count the step")
  const signInMachine = await cpuPerOp(() => machineSignIn(providedCredentials))
  const signInHand = await cpuPerOp(handSignIn)
  const resumeMachine = await cpuPerOp(machineResume)
  const resumeHand = await cpuPerOp(handResume)
  return {
    signIn: { machine: signInMachine, hand: signInHand, overheadUs: signInMachine.best - signInHand.best },
    resume: { machine: resumeMachine, hand: resumeHand, overheadUs: resumeMachine.best - resumeHand.best },
    iterations: ITERATIONS,
    rounds: ROUNDS,
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))
if (isMain) {
  const result = await benchMachine()
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2))
  else {
    const f = (x: number) => x.toFixed(1).padStart(7)
    console.log(`machine model, CPU µs per operation (best of ${ROUNDS} rounds of ${ITERATIONS}; median in brackets)`)
    for (const [name, r] of [
      ["credentials sign-in (create, start, send, run to end)", result.signIn],
      ["resume a resting flow (restore, send, rest, persist)", result.resume],
    ] as const) {
      console.log(
        `  ${name}: machine ${f(r.machine.best)} (${r.machine.median.toFixed(1)}), hand-written ${f(r.hand.best)} (${r.hand.median.toFixed(1)}), overhead ${f(r.overheadUs)}`,
      )
    }
  }
}
