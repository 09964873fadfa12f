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
import { isPromiseLike } from "./awaitable.js"
import type { EffectStarter } from "./effects/effect.js"
import { compiledOf } from "./machine-compile.js"
import { persistedSnapshot, restoredSnapshot } from "./machine-persist.js"
import { type StepSink, startSnapshot, stepMachine, steppable } from "./machine-step.js"
import { type MachineRun, type RunOptions, isPersistedSnapshot, resting } from "./run-common.js"
import { type Deadlined, unwatchDeadline, watchDeadline } from "./run-deadlines.js"

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

/** An effect in flight: its invoke id, and the event its outcome is once it settled. */
interface Pending {
  readonly id: string
  outcome: EventObject
}

/** Removes the entries of invoke `id` from `list`, in place (usually there are none). */
function drop(list: Pending[], id: string): void {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.id === id) list.splice(i, 1)
}

/**
 * One request's run on the direct runner. An effect that answers at once (a value, or a throw) is fed to
 * the machine at once; the run waits (a promise, and a deadline watched with every other waiting run's:
 * run-deadlines.ts) only while an effect's promise is pending, and each outcome that arrives steps the
 * machine from where it waits.
 */
class DirectRun implements MachineRun, StepSink, Deadlined {
  readonly before: AnyMachineSnapshot
  /** The effects whose promise is pending, in the order they started; an effect stopped is no longer here. */
  private readonly running: Pending[] = []
  /** Effects that settled and whose outcome the machine has not been sent yet, in order. */
  private readonly settled: Pending[] = []
  /** While the run waits: where it waits, and its promise's callbacks. */
  private at: AnyMachineSnapshot | undefined
  private waiter: { resolve(snapshot: AnyMachineSnapshot): void; reject(error: unknown): void } | undefined
  /** `performance.now()` ms by which the run must rest or end once the event was sent. */
  deadline = 0

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

  send(event: EventObject): AnyMachineSnapshot | undefined | Promise<AnyMachineSnapshot> {
    const sentAt = performance.now()
    const snapshot = stepMachine(this.machine, this.before, event, this, host)
    if (snapshot === this.before) return undefined
    const rest = this.proceed(snapshot)
    if (rest) return rest
    this.deadline = sentAt + this.options.timeout
    return new Promise<AnyMachineSnapshot>((resolve, reject) => {
      this.waiter = { resolve, reject }
      watchDeadline(this)
    })
  }

  persist(snapshot: AnyMachineSnapshot): unknown {
    return persistedSnapshot(snapshot) ?? this.machine.getPersistedSnapshot(snapshot)
  }

  stop(): void {
    this.stopEffects()
    if (this.waiter) this.fail(new FlowStateError("The sign-in step was stopped before it rested or ended."))
  }

  startEffect(id: string, start: EffectStarter, input: unknown): void {
    let started: unknown
    try {
      started = start(this.options.ctx, input)
    } catch (error) {
      this.settled.push({ id, outcome: failed(id, error) })
      return
    }
    if (!isPromiseLike(started)) {
      this.settled.push({ id, outcome: done(id, started) })
      return
    }
    const pending: Pending = { id, outcome: { type: "" } }
    this.running.push(pending)
    // a native promise is itself (no extra promise); another thenable is adopted as `await` would
    Promise.resolve(started).then(
      (output) => this.arrive(pending, done(id, output)),
      (error: unknown) => this.arrive(pending, failed(id, error)),
    )
  }

  stopEffect(id: string): void {
    drop(this.running, id)
    drop(this.settled, id)
  }

  stopEffects(): void {
    this.running.length = 0
    this.settled.length = 0
  }

  /** The deadline passed while the run waits (it is no longer watched): the run fails with a `FlowStateError`. */
  expire(): void {
    const waiter = this.waiter
    this.waiter = undefined
    this.at = undefined
    waiter?.reject(new FlowStateError(`The sign-in step did not finish within ${this.options.timeout} ms.`))
  }

  /**
   * The machine stepped over every outcome already there: the snapshot it rests or ends at, or undefined
   * when it must wait for an effect in flight (kept as where it waits). Throws when nothing is in flight.
   */
  private proceed(snapshot: AnyMachineSnapshot): AnyMachineSnapshot | undefined {
    while (!resting(snapshot)) {
      const ready = this.settled.shift()
      if (!ready) {
        if (this.running.length === 0) throw new FlowStateError("The sign-in step stopped before it rested or ended.")
        this.at = snapshot
        return undefined
      }
      snapshot = stepMachine(this.machine, snapshot, ready.outcome, this, host)
    }
    return snapshot
  }

  /** An effect's promise settled: the waiting run steps on; a stopped effect's outcome reaches nothing. */
  private arrive(pending: Pending, outcome: EventObject): void {
    const at = this.running.indexOf(pending)
    if (at === -1) return
    this.running.splice(at, 1)
    const waiter = this.waiter
    const from = this.at
    if (!waiter || !from) {
      pending.outcome = outcome
      this.settled.push(pending)
      return
    }
    let rest: AnyMachineSnapshot | undefined
    try {
      rest = this.proceed(stepMachine(this.machine, from, outcome, this, host))
    } catch (error) {
      this.fail(error)
      return
    }
    if (!rest) return
    this.waiter = undefined
    this.at = undefined
    unwatchDeadline(this)
    waiter.resolve(rest)
  }

  private fail(error: unknown): void {
    const waiter = this.waiter
    this.waiter = undefined
    this.at = undefined
    unwatchDeadline(this)
    waiter?.reject(error)
  }
}

/** xstate's event for an effect's output. */
function done(id: string, output: unknown): EventObject {
  const event: EventObject & { output: unknown; actorId: string } = { type: `xstate.done.actor.${id}`, output, actorId: id }
  return event
}

/** xstate's event for an effect that failed. */
function failed(id: string, error: unknown): EventObject {
  const event: EventObject & { error: unknown; actorId: string } = { type: `xstate.error.actor.${id}`, error, actorId: id }
  return event
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
