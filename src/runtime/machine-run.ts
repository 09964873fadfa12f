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

type Outcome = { id: string; event: EventObject }

/** One request's run on the direct runner. */
class DirectRun implements MachineRun, StepSink {
  readonly before: AnyMachineSnapshot
  /** The effects in flight, by invoke id, with their outcome as an event. */
  private readonly running = new Map<string, Promise<Outcome>>()

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
    let timer: NodeJS.Timeout | undefined
    const { timeout } = this.options
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FlowStateError(`The sign-in step did not finish within ${timeout} ms.`)), timeout)
    })
    try {
      while (!resting(snapshot)) {
        const next = await this.next(deadline)
        snapshot = stepMachine(this.machine, snapshot, next, this, host)
      }
      return snapshot
    } finally {
      clearTimeout(timer)
    }
  }

  persist(snapshot: AnyMachineSnapshot): unknown {
    return this.machine.getPersistedSnapshot(snapshot)
  }

  stop(): void {
    this.running.clear()
  }

  startEffect(id: string, start: EffectStarter, input: unknown): void {
    let started: Promise<unknown>
    try {
      started = start(this.options.ctx, input)
    } catch (error) {
      started = Promise.reject(error)
    }
    this.running.set(
      id,
      started.then(
        (output) => ({ id, event: { type: `xstate.done.actor.${id}`, output, actorId: id } }),
        (error: unknown) => ({ id, event: { type: `xstate.error.actor.${id}`, error, actorId: id } }),
      ),
    )
  }

  stopEffect(id: string): void {
    this.running.delete(id)
  }

  stopEffects(): void {
    this.running.clear()
  }

  /** The outcome of the first effect in flight to settle, as the event the machine gets. */
  private async next(deadline: Promise<never>): Promise<EventObject> {
    const { running } = this
    const only = running.size === 1 ? running.values().next().value : undefined
    if (running.size === 0) throw new FlowStateError("The sign-in step stopped before it rested or ended.")
    const outcome = await Promise.race(only ? [only, deadline] : [...running.values(), deadline])
    running.delete(outcome.id)
    return outcome.event
  }
}

function restore(machine: AnyStateMachine, persisted: unknown): unknown {
  if (!isPersistedSnapshot(persisted) || !machine.restoreSnapshot) throw new TypeError("not a persisted snapshot")
  return machine.restoreSnapshot(persisted, scope)
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
