/**
 * `npm run bench:machine`: what the machine model costs per request, beside a hand-written equivalent.
 *
 * The same credentials sign-in two ways, with effects that do no I/O (so only the model is measured):
 * (1) the real `credentialsMachine`, provided once, driven by the engine's runner (an xstate actor,
 * actor-run.ts) as `runMachine` drives it (start, check it rests, send the one event, run to the end,
 * read the output); (2) the same flow written as plain async code doing the same non-effect work (the four calls in order,
 * the gate's branch, the submitted credentials dropped after the gate, the output built, the run bounded
 * by a `flowTimeout` timer as the engine bounds it). And the resume of a resting flow: restore a
 * persisted snapshot, send, run one effect, rest again, persist (`getPersistedSnapshot` + JSON), against a
 * hand-written resume that parses, checks, calls the same effect and writes the same state. The
 * difference per operation is the model's overhead. The effects themselves are the same functions on
 * every side. CPU time (process.cpuUsage) over many iterations; the best of several rounds is reported.
 * Knobs: BENCH_MACHINE_ITERATIONS (per round, default 20000), BENCH_MACHINE_ROUNDS (default 5). With COLD=1
 * each call runs after a cache eviction (bench/cold.ts) and its wall time is read: the model's cost as a
 * server meets it, its code and objects out of the caches.
 * `--json` prints the results as JSON.
 */
import { type AnyStateMachine, assign, setup } from "xstate"
import { credentialsMachine } from "../src/machines/credentials.js"
import { flowTypes, initialContext } from "../src/machines/setup.js"
import { AWAITING_INPUT, type FlowOutput, type GateResult, type Identity, type Issued } from "../src/machines/types.js"
import { FlowRun } from "../src/runtime/engine/actor-run.js"
import { effect } from "../src/runtime/engine/effects/effect.js"
import Credentials from "../src/providers/credentials.js"
import { resolvedFor } from "../src/runtime/front/resolve.js"
import { withCallbackUrl } from "../src/runtime/http/context.js"
import { requestContext } from "../src/runtime/http/request.js"
import { COLD, request, takeColdUs } from "./cold.js"
import { cpuRounds } from "./loop-rounds.js"

const ITERATIONS = Number(process.env.BENCH_MACHINE_ITERATIONS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_MACHINE_ROUNDS ?? 5)
const TIMEOUT = 15_000

const IDENTITY: Identity = {
  user: { id: "1", name: "Bench", email: "bench@example.test" },
  account: { providerAccountId: "1", type: "credentials", provider: "credentials" },
  credentials: { username: "bench" },
}
const ISSUED: Issued = { redirect: "http://127.0.0.1/dashboard", cookies: [] }
const EVENT = { type: "SUBMIT" as const, params: { username: "bench", password: "bench" }, now: 0 }
const INPUT = { provider: "credentials", now: 0 }

const authorize = async (params: Record<string, unknown>): Promise<Identity> => {
  if (params.username !== "bench") throw new Error("wrong user")
  return IDENTITY
}
const signInGate = async (_identity: Identity): Promise<GateResult> => ({ allow: true })
const linkIdentity = async (identity: Identity) => identity
const issueSession = async (_identity: Identity) => ISSUED
const checkAnswer = async (params: Record<string, unknown>) => params.password === "bench"

// effects made as the runtime makes them (`effect()`)
const providedCredentials = credentialsMachine.provide({
  actors: {
    authorize: effect((_ctx, input: { params: Record<string, unknown> }) => authorize(input.params)),
    signInGate: effect((_ctx, input: Identity) => signInGate(input)),
    linkIdentity: effect((_ctx, input: Identity) => linkIdentity(input)),
    issueSession: effect((_ctx, input: Identity) => issueSession(input)),
  },
})
/** The request context a credentials callback runs with (the effects make their services from it, as in the runtime). */
function effectContext() {
  const config = resolvedFor({
    secret: "bench-secret-bench-secret-bench-secret",
    trustHost: true,
    providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
  })
  const headers = new Headers({ host: "127.0.0.1" })
  const incoming = {
    method: "POST",
    url: new URL("http://127.0.0.1/auth/callback/credentials"),
    headers,
    cookies: {},
    body: EVENT.params,
    headerEntries: () => headers.entries(),
  }
  const ctx = requestContext(incoming, config)
  if ("response" in ctx) throw new Error("the bench's request has no context")
  return withCallbackUrl(ctx, "http://127.0.0.1/dashboard")
}
const EFFECT_CONTEXT = effectContext()

/** A flow that rests: `idle` → `step` (rests); each SUBMIT at `step` runs `check` and rests again, counting. */
const restingMachine = setup({
  types: flowTypes(),
  actors: { check: effect((_ctx, input: { params: Record<string, unknown> }) => checkAnswer(input.params)) },
}).createMachine({
  id: "resting",
  initial: "idle",
  context: ({ input }) => initialContext(input),
  states: {
    idle: { tags: [AWAITING_INPUT], on: { SUBMIT: { target: "step" } } },
    step: { tags: [AWAITING_INPUT], on: { SUBMIT: { target: "checking" } } },
    checking: {
      invoke: {
        src: "check",
        input: ({ event }) => ({ params: event.params }),
        onDone: {
          target: "step",
          actions: assign({ steps: ({ context }) => ({ totp: { attempts: (context.steps.totp?.attempts ?? 0) + 1 } }) }),
        },
      },
    },
  },
})

/** One request as `runMachine` drives it: start or restore, check it rests, send, run to rest or end. */
async function runOnce(machine: AnyStateMachine, persisted: unknown) {
  const run = new FlowRun(machine, { persisted, input: INPUT, ctx: EFFECT_CONTEXT, timeout: TIMEOUT })
  try {
    const { before } = run
    if (before.status !== "active" || !before.hasTag(AWAITING_INPUT)) throw new Error("not waiting for input")
    if (!before.can(EVENT)) throw new Error("the event is not taken")
    const after = await run.send(EVENT)
    if (after.status === "error") throw after.error
    return { after, persisted: after.status === "active" ? run.persist() : undefined }
  } finally {
    run.stop()
  }
}

const machineSignIn = async (): Promise<FlowOutput> => (await runOnce(providedCredentials, undefined)).after.output

/** The engine's bound on a run (a flow that honours `flowTimeout` needs it written by hand too). */
function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), TIMEOUT)
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}

async function handFlow(): Promise<FlowOutput> {
  const identity = await authorize(EVENT.params)
  const gate = await signInGate(identity)
  if (!gate.allow) return { ok: true, reply: { type: "redirect", url: gate.redirect } }
  const { credentials: _, ...kept } = identity
  const linked = await linkIdentity(kept)
  const issued = await issueSession(linked)
  return { ok: true, reply: { type: "redirect", url: issued.redirect, cookies: issued.cookies } }
}
const handSignIn = (): Promise<FlowOutput> => bounded(handFlow())

/** The resting flow's persisted snapshot at `step` (as the flow store would give it back). */
const restingStart = await (async () => {
  const first = await runOnce(restingMachine, undefined)
  return JSON.stringify(first.persisted)
})()

async function machineResume(): Promise<string> {
  const { persisted } = await runOnce(restingMachine, JSON.parse(restingStart))
  return JSON.stringify(persisted)
}

const handStart = JSON.stringify({ state: "step", attempts: 0 })
async function handResume(): Promise<string> {
  const saved: { state: string; attempts: number } = JSON.parse(handStart)
  if (saved.state !== "step") throw new Error("not resting")
  await bounded(checkAnswer(EVENT.params))
  return JSON.stringify({ state: "step", attempts: saved.attempts + 1 })
}

/** CPU µs per call of `op`: the best (least disturbed) of ROUNDS rounds of ITERATIONS calls. */
async function cpuPerOp(op: () => Promise<unknown>): Promise<{ best: number; median: number }> {
  for (let i = 0; i < 2000; i++) await op()
  const rounds = COLD ? await coldRounds(op) : await cpuRounds(op, ITERATIONS, ROUNDS)
  return { best: rounds[0] as number, median: rounds[rounds.length >> 1] as number }
}

/** COLD=1: wall µs per call, each call after a cache eviction (bench/cold.ts), ITERATIONS / 10 calls a round. */
async function coldRounds(op: () => Promise<unknown>): Promise<number[]> {
  const res: number[] = []
  const n = Math.max(1, Math.floor(ITERATIONS / 10))
  for (let round = 0; round < ROUNDS; round++) {
    takeColdUs()
    for (let i = 0; i < n; i++) await request(op)
    res.push(takeColdUs() / n)
  }
  return res.sort((a, b) => a - b)
}

type Timing = { best: number; median: number }

/** Per comparison: the engine's runner (`machine`) and the hand-written code. */
export interface MachineBench {
  signIn: { machine: Timing; hand: Timing; overheadUs: number }
  resume: { machine: Timing; hand: Timing; overheadUs: number }
  iterations: number
  rounds: number
}

/** Runs both comparisons; checks first that the runner and the hand-written code give the same answer. */
export async function benchMachine(): Promise<MachineBench> {
  const answers = [await machineSignIn(), await handSignIn()].map((a) => JSON.stringify(a))
  if (new Set(answers).size !== 1) throw new Error(`the runner and the hand-written sign-in disagree: ${answers.join(" vs ")}`)
  const resumed: { context: { steps: { totp: { attempts: number } } } } = JSON.parse(await machineResume())
  if (resumed.context.steps.totp.attempts !== 1) throw new Error("the resumed machine did not count the step")
  const signIn = { machine: await cpuPerOp(machineSignIn), hand: await cpuPerOp(handSignIn) }
  const resume = { machine: await cpuPerOp(machineResume), hand: await cpuPerOp(handResume) }
  return {
    signIn: { ...signIn, overheadUs: signIn.machine.best - signIn.hand.best },
    resume: { ...resume, overheadUs: resume.machine.best - resume.hand.best },
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
      ["credentials sign-in (start, send, run to end)", result.signIn],
      ["resume a resting flow (restore, send, effect, rest, persist)", result.resume],
    ] as const) {
      console.log(`  ${name}:`)
      console.log(`    engine (xstate actor) ${f(r.machine.best)} (${r.machine.median.toFixed(1)})  overhead ${f(r.overheadUs)}`)
      console.log(`    hand-written          ${f(r.hand.best)} (${r.hand.median.toFixed(1)})`)
    }
  }
}
