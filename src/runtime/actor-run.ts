/**
 * The engine's actor runner: a request's run on a full xstate actor (created, started, sent the event,
 * watched until it rests or ends). Used for machines the direct runner does not take (machine-run.ts)
 * and for every run an inspector watches: xstate's `inspect` stream comes from the actor system.
 */
import { type AnyActor, type AnyMachineSnapshot, type AnyStateMachine, createActor, type EventObject, isMachineSnapshot } from "xstate"
import { FlowStateError } from "../errors.js"
import { bindEffectContext } from "./effects/effect.js"
import { type MachineRun, type RunOptions, isPersistedSnapshot, resting } from "./run-common.js"

function snapshotOf(actor: AnyActor): AnyMachineSnapshot {
  const snapshot: unknown = actor.getSnapshot()
  if (!isMachineSnapshot(snapshot)) throw new TypeError("the actor gave no machine snapshot")
  return snapshot
}

/** Resolves once the actor rests, ends or fails; rejects after `ms`. */
function settle(actor: AnyActor, ms: number): Promise<AnyMachineSnapshot> {
  const now = snapshotOf(actor)
  if (resting(now)) return Promise.resolve(now)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unsubscribe()
      reject(new FlowStateError(`The sign-in step did not finish within ${ms} ms.`))
    }, ms)
    const done = () => {
      clearTimeout(timer)
      sub.unsubscribe()
      resolve(snapshotOf(actor))
    }
    const sub = actor.subscribe({ next: () => resting(snapshotOf(actor)) && done(), error: done })
  })
}

class ActorRun implements MachineRun {
  readonly before: AnyMachineSnapshot
  private readonly actor: AnyActor

  constructor(
    machine: AnyStateMachine,
    private readonly options: RunOptions,
  ) {
    const { persisted, input, inspect } = options
    const base = { input, ...(inspect ? { inspect } : {}) }
    if (persisted !== undefined && !isPersistedSnapshot(persisted)) throw new TypeError("not a persisted snapshot")
    this.actor = createActor(machine, persisted === undefined ? base : { ...base, snapshot: persisted })
    bindEffectContext(this.actor.system, options.ctx)
    this.actor.start()
    this.before = snapshotOf(this.actor)
  }

  async send(event: EventObject): Promise<AnyMachineSnapshot | undefined> {
    this.actor.send(event)
    if (this.actor.getSnapshot() === this.before) return undefined
    return settle(this.actor, this.options.timeout)
  }

  persist(): unknown {
    return this.actor.getPersistedSnapshot()
  }

  stop(): void {
    this.actor.stop()
  }
}

/**
 * Starts a request's run of `machine` on an xstate actor (restored, or new with the input); throws when
 * the persisted snapshot does not fit the machine.
 * @example const run = startActorRun(machine, { persisted, input, ctx, timeout: 10_000, inspect })
 */
export function startActorRun(machine: AnyStateMachine, options: RunOptions): MachineRun {
  return new ActorRun(machine, options)
}
