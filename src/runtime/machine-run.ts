/**
 * The engine's direct runner: steps a flow's provided machine with the machine's own `transition`,
 * `getInitialSnapshot`, `restoreSnapshot` and `getPersistedSnapshot`, and runs the effects it invokes
 * itself, feeding their outcomes back as xstate's `xstate.done.actor.<id>` / `xstate.error.actor.<id>`
 * events, until the machine rests (`awaiting-input`) or ends. The statechart decides everything (states,
 * guards, `assign`, `raise`, eventless transitions); the runner only carries events. Per request there
 * is no actor system, mailbox, started child actor or subscription: the snapshots are xstate's own, so a
 * persisted one resumes on either runner.
 *
 * A machine qualifies when everything it invokes is an `effect()` and its actions are `assign` and
 * `raise` without delay (see {@link directRunnable}); anything else (delays, `sendTo`, custom actions,
 * other actor logic) runs on a full xstate actor (actor-run.ts), as does every run an inspector watches.
 */
import {
  type AnyActorLogic,
  type AnyActorRef,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  createEmptyActor,
  type EventObject,
  type ExecutableActionObject,
  isMachineSnapshot,
} from "xstate"
import { FlowStateError } from "../errors.js"
import { AWAITING_INPUT } from "../machines/types.js"
import { effectStarter } from "./effects/effect.js"
import { type MachineRun, type RunOptions, isPersistedSnapshot, resting } from "./run-common.js"

const SPAWN = "xstate.spawnChild"
const STOP = "xstate.stopChild"
const RAISE = "xstate.raise"
const ASSIGN = "xstate.assign"

/**
 * A machine's direct runner: one actor scope for all its runs (a transition is synchronous, so the
 * executable actions of the step being computed are collected in one array).
 */
interface Runner {
  readonly machine: AnyStateMachine
  readonly scope: AnyActorScope
  readonly actions: ExecutableActionObject[]
}

const noop = () => {}
const runners = new WeakMap<AnyStateMachine, Runner | null>()

/**
 * Whether the direct runner can run `machine`: every invoke is an `effect()`, no state resting at
 * `awaiting-input` invokes anything, no delayed transitions or snapshot listeners, and every action is an
 * `assign` or an undelayed `raise`. Decided once per machine.
 * @example const run = directRunnable(machine) ? startDirectRun(machine, options) : startActorRun(machine, options)
 */
export function directRunnable(machine: AnyStateMachine): boolean {
  return runnerOf(machine) !== null
}

function runnerOf(machine: AnyStateMachine): Runner | null {
  let runner = runners.get(machine)
  if (runner === undefined) {
    runner = qualifies(machine) ? makeRunner(machine) : null
    runners.set(machine, runner)
  }
  return runner
}

function makeRunner(machine: AnyStateMachine): Runner {
  // the parent of the effects' actor refs (never started) and the `self` of the machine's actions
  const host = createEmptyActor()
  const actions: ExecutableActionObject[] = []
  const scope: AnyActorScope = {
    self: host,
    id: host.id,
    sessionId: host.sessionId,
    logger: noop,
    defer: noop,
    emit: noop,
    system: host.system,
    stopChild: noop,
    actionExecutor: (action) => {
      actions.push(action)
    },
  }
  return { machine, scope, actions }
}

function qualifies(machine: AnyStateMachine): boolean {
  const named = machine.implementations.actions
  const actionOk = (action: unknown): boolean => {
    if (typeof action === "string") return actionOk(named[action])
    if (typeof action === "function") {
      const type = "type" in action ? action.type : undefined
      return type === ASSIGN || (type === RAISE && "delay" in action && action.delay === undefined)
    }
    return typeof action === "object" && action !== null && "type" in action && actionOk(action.type)
  }
  const invokedOk = (node: AnyStateNode): boolean =>
    node.invoke.every((invoke, i) => {
      const inline: unknown = [node.config.invoke].flat()[i]?.src
      const logic = typeof invoke.src === "string" ? (machine.implementations.actors[invoke.src] ?? inline) : invoke.src
      return isLogic(logic) && effectStarter(logic) !== undefined
    })
  const nodeOk = (node: AnyStateNode): boolean => {
    if (node.after.length > 0 || (node.tags.includes(AWAITING_INPUT) && node.invoke.length > 0) || !invokedOk(node)) return false
    const transitions = [...node.transitions.values()].flat().concat(node.always ?? [])
    if (transitions.some((t) => t.eventType.startsWith("xstate.snapshot."))) return false
    const actions = [...node.entry, ...node.exit, ...transitions.flatMap((t) => t.actions)]
    return actions.every(actionOk) && Object.values(node.states).every(nodeOk)
  }
  return nodeOk(machine.root)
}

function isLogic(value: unknown): value is AnyActorLogic {
  return typeof value === "object" && value !== null && "transition" in value
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

function isActorRef(value: unknown): value is AnyActorRef & { logic: AnyActorLogic } {
  return isRecord(value) && typeof value.id === "string" && isLogic(value.logic)
}

type Outcome = { ref: AnyActorRef; event: EventObject }

/** An effect in flight: its actor ref (as the machine's `children` hold it) and its outcome as an event. */
interface Running {
  readonly ref: AnyActorRef
  readonly outcome: Promise<Outcome>
}

/** One request's run on the direct runner. */
class DirectRun implements MachineRun {
  readonly before: AnyMachineSnapshot
  private readonly running: Running[] = []

  constructor(
    private readonly runner: Runner,
    private readonly options: RunOptions,
  ) {
    const { machine, scope, actions } = runner
    actions.length = 0
    const { persisted, input } = options
    const snapshot = persisted === undefined ? machine.getInitialSnapshot(scope, input) : restore(machine, persisted, scope)
    if (!isMachineSnapshot(snapshot)) throw new TypeError("the machine gave no snapshot")
    this.before = snapshot
  }

  async send(event: EventObject): Promise<AnyMachineSnapshot | undefined> {
    let snapshot = this.step(this.before, event)
    if (snapshot === this.before) return undefined
    if (resting(snapshot)) return snapshot
    let timer: NodeJS.Timeout | undefined
    const { timeout } = this.options
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FlowStateError(`The sign-in step did not finish within ${timeout} ms.`)), timeout)
    })
    try {
      while (!resting(snapshot)) {
        const next = await this.next(deadline)
        snapshot = this.step(snapshot, next.event)
      }
      return snapshot
    } finally {
      clearTimeout(timer)
    }
  }

  persist(snapshot: AnyMachineSnapshot): unknown {
    return this.runner.machine.getPersistedSnapshot(snapshot)
  }

  stop(): void {
    // effects still in flight are forgotten: their outcomes reach nothing
    this.running.length = 0
  }

  /** The machine's step over `event`; starts the effects it spawns, forgets those it stops. */
  private step(snapshot: AnyMachineSnapshot, event: EventObject): AnyMachineSnapshot {
    const { machine, scope, actions } = this.runner
    actions.length = 0
    const next = machine.transition(snapshot, event, scope)
    for (const action of actions) this.execute(action)
    return next
  }

  private execute(action: ExecutableActionObject): void {
    const { type, params } = action
    if (type === SPAWN && isRecord(params) && isActorRef(params.actorRef)) {
      const ref = params.actorRef
      const start = effectStarter(ref.logic)
      if (!start) throw new TypeError(`the direct runner cannot run actor "${ref.id}"`)
      this.running.push({ ref, outcome: outcomeOf(ref, () => start(this.options.ctx, ref)) })
    } else if (type === STOP && isRecord(params)) {
      const index = this.running.findIndex((r) => r.ref === params.actorRef)
      if (index >= 0) this.running.splice(index, 1)
    } else if (type !== RAISE) {
      throw new TypeError(`the direct runner cannot execute "${type}"`)
    }
  }

  /** The outcome of the first effect in flight to settle (removed from those in flight). */
  private async next(deadline: Promise<never>): Promise<Outcome> {
    const { running } = this
    const first = running[0]
    if (!first) throw new FlowStateError("The sign-in step stopped before it rested or ended.")
    const next = await (running.length === 1
      ? Promise.race([first.outcome, deadline])
      : Promise.race([...running.map((r) => r.outcome), deadline]))
    running.splice(
      running.findIndex((r) => r.ref === next.ref),
      1,
    )
    return next
  }
}

function restore(machine: AnyStateMachine, persisted: unknown, scope: AnyActorScope): unknown {
  if (!isPersistedSnapshot(persisted) || !machine.restoreSnapshot) throw new TypeError("not a persisted snapshot")
  return machine.restoreSnapshot(persisted, scope)
}

/** The effect's settlement as the event xstate's promise actors send their parent. */
function outcomeOf(ref: AnyActorRef, start: () => Promise<unknown>): Promise<Outcome> {
  const id = ref.id
  let started: Promise<unknown>
  try {
    started = start()
  } catch (error) {
    started = Promise.reject(error)
  }
  return started.then(
    (output) => ({ ref, event: { type: `xstate.done.actor.${id}`, output, actorId: id } }),
    (error: unknown) => ({ ref, event: { type: `xstate.error.actor.${id}`, error, actorId: id } }),
  )
}

/**
 * Starts a request's run of `machine` on the direct runner (restored, or new with the input); throws
 * when the persisted snapshot does not fit the machine.
 * @example const run = startDirectRun(machine, { persisted, input, ctx, timeout: 10_000 })
 */
export function startDirectRun(machine: AnyStateMachine, options: RunOptions): MachineRun {
  const runner = runnerOf(machine)
  if (!runner) throw new TypeError("startDirectRun: the machine does not qualify (directRunnable)")
  return new DirectRun(runner, options)
}
