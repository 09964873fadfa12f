/**
 * The engine's direct runner: a request's run of a flow machine stepped by `stepMachine` (machine-step.ts),
 * with the effects it invokes run here and their outcomes fed back as the events xstate's promise actors
 * send (`xstate.done.actor.<id>` with `output`, `xstate.error.actor.<id>` with `error`), until the machine
 * rests (`awaiting-input`) or ends. Restoring, starting and persisting are the machine's own
 * (`restoreSnapshot`, `getInitialSnapshot`, `getPersistedSnapshot`): the snapshots are xstate's, so a
 * flow persisted by either runner resumes on the other. Per request there is no actor system, mailbox,
 * child actor or subscription.
 *
 * The engine uses it for the machines `stepMachine` takes, unless an inspector watches the run (xstate's
 * `inspect` stream comes from an actor system): those run on a full xstate actor (actor-run.ts).
 */
import {
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createEmptyActor,
  type EventObject,
  isMachineSnapshot,
} from "xstate"
import { FlowStateError } from "../errors.js"
import type { EffectStarter } from "./effects/effect.js"
import { compiledOf } from "./machine-compile.js"
import { persistedSnapshot, restoredSnapshot } from "./machine-persist.js"
import { type StepSink, startSnapshot, stepMachine, steppable } from "./machine-step.js"
import { type MachineRun, type RunOptions, isPersistedSnapshot, resting } from "./run-common.js"

const noop = () => {}

/** The `self` of the machines' actions and the scope of their start and restore: never started. */
const host = createEmptyActor()
const scope: AnyActorScope = {
  self: host,
  id: host.id,
  sessionId: host.sessionId,
  logger: noop,
  defer: noop,
  emit: noop,
  system: host.system,
  stopChild: noop,
  actionExecutor: noop,
}

/**
 * Whether the engine runs `machine` directly (see machine-step.ts for what it takes); decided once per
 * machine.
 * @example const run = directRunnable(machine) ? startDirectRun(machine, options) : startActorRun(machine, options)
 */
export function directRunnable(machine: AnyStateMachine): boolean {
  return steppable(machine)
}

/** The event an effect's outcome is: xstate's `xstate.done.actor.<id>` or `xstate.error.actor.<id>`. */
type EffectOutcome = { type: string; actorId: string; output?: unknown; error?: unknown }

/** An effect in flight: its invoke id, and the event its outcome is once it settled. */
interface Pending {
  readonly id: string
  outcome: EventObject | undefined
}

/** One request's run on the direct runner. */
class DirectRun implements MachineRun, StepSink {
  readonly before: AnyMachineSnapshot
  /** The effects in flight, in the order they started; an effect stopped is no longer here. */
  private running: Pending[] = []
  /** Effects in flight that settled and whose outcome the machine has not been sent yet, in order. */
  private settled: Pending[] = []
  /** The run waiting for the next outcome, if it is waiting. */
  private waiter: { resolve(event: EventObject): void; reject(error: unknown): void } | undefined
  /** Set when the run took longer than its timeout. */
  private expired: FlowStateError | undefined

  constructor(
    private readonly machine: AnyStateMachine,
    private readonly options: RunOptions,
  ) {
    const { persisted, input } = options
    const snapshot =
      persisted === undefined
        ? (startSnapshot(machine, input, host) ?? machine.getInitialSnapshot(scope, input))
        : restore(machine, persisted)
    if (!isMachineSnapshot(snapshot)) throw new TypeError("the machine gave no snapshot")
    this.before = snapshot
  }

  async send(event: EventObject): Promise<AnyMachineSnapshot | undefined> {
    let snapshot = stepMachine(this.machine, this.before, event, this, host)
    if (snapshot === this.before) return undefined
    if (resting(snapshot)) return snapshot
    const timer = setTimeout(expire, this.options.timeout, this)
    try {
      while (!resting(snapshot)) snapshot = stepMachine(this.machine, snapshot, await this.next(), this, host)
      return snapshot
    } finally {
      clearTimeout(timer)
    }
  }

  persist(snapshot: AnyMachineSnapshot): unknown {
    return persistedSnapshot(snapshot) ?? this.machine.getPersistedSnapshot(snapshot)
  }

  stop(): void {
    this.stopEffects()
  }

  startEffect(id: string, start: EffectStarter, input: unknown): void {
    let started: Promise<unknown>
    try {
      started = start(this.options.ctx, input)
    } catch (error) {
      started = Promise.reject(error)
    }
    const pending: Pending = { id, outcome: undefined }
    this.running.push(pending)
    started.then(
      (output) => this.arrive(pending, { type: `xstate.done.actor.${id}`, output, actorId: id }),
      (error: unknown) => this.arrive(pending, { type: `xstate.error.actor.${id}`, error, actorId: id }),
    )
  }

  stopEffect(id: string): void {
    this.running = this.running.filter((p) => p.id !== id)
    this.settled = this.settled.filter((p) => p.id !== id)
  }

  stopEffects(): void {
    this.running = []
    this.settled = []
  }

  /** The run timed out: the wait (now or next) fails with a `FlowStateError`. */
  timeOut(): void {
    this.expired = new FlowStateError(`The sign-in step did not finish within ${this.options.timeout} ms.`)
    const waiter = this.waiter
    this.waiter = undefined
    waiter?.reject(this.expired)
  }

  /** An effect settled: its outcome goes to the waiting run, or waits for it; a stopped effect's reaches nothing. */
  private arrive(pending: Pending, outcome: EffectOutcome): void {
    if (!this.running.includes(pending)) return
    pending.outcome = outcome
    const waiter = this.waiter
    if (!waiter) {
      this.settled.push(pending)
      return
    }
    this.waiter = undefined
    this.forget(pending)
    waiter.resolve(outcome)
  }

  private forget(pending: Pending): void {
    const at = this.running.indexOf(pending)
    if (at !== -1) this.running.splice(at, 1)
  }

  /** The outcome of the first effect in flight to settle, as the event the machine gets. */
  private next(): EventObject | Promise<EventObject> {
    if (this.expired) throw this.expired
    const ready = this.settled.shift()
    if (ready?.outcome) {
      this.forget(ready)
      return ready.outcome
    }
    if (this.running.length === 0) throw new FlowStateError("The sign-in step stopped before it rested or ended.")
    return new Promise<EventObject>((resolve, reject) => {
      this.waiter = { resolve, reject }
    })
  }
}

/** The timer of a run that took too long. */
function expire(run: DirectRun): void {
  run.timeOut()
}

/** The persisted snapshot restored: by the direct runner's own restore when it takes it (machine-persist.ts), else by xstate. */
function restore(machine: AnyStateMachine, persisted: unknown): unknown {
  if (!isPersistedSnapshot(persisted) || !machine.restoreSnapshot) throw new TypeError("not a persisted snapshot")
  const c = compiledOf(machine)
  return (c && restoredSnapshot(c, machine, persisted as Record<string, unknown>)) ?? machine.restoreSnapshot(persisted, scope)
}

/**
 * Starts a request's run of `machine` on the direct runner (restored, or new with the input); throws
 * when the persisted snapshot does not fit the machine.
 * @example const run = startDirectRun(machine, { persisted, input, ctx, timeout: 10_000 })
 */
export function startDirectRun(machine: AnyStateMachine, options: RunOptions): MachineRun {
  if (!steppable(machine)) throw new TypeError("startDirectRun: the machine is not run directly (directRunnable)")
  return new DirectRun(machine, options)
}
