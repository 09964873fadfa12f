/**
 * The engine's runner, the one every flow run goes through (inspected or not): a request's run of a flow
 * machine on an xstate actor (`createActor`, restored from the persisted snapshot or started with the
 * input), sent the request's one event and watched until it rests at `awaiting-input` or ends, bounded
 * by `flowTimeout`. Effects run as xstate's promise actors; an inspector gets xstate's `inspect` stream.
 */
import {
  type AnyActor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type EventObject,
  type InspectionEvent,
  isMachineSnapshot,
  type Snapshot,
  type Subscription,
} from "xstate"
import { FlowStateError } from "../../errors.js"
import { AWAITING_INPUT } from "../../machines/types.js"
import { bindEffectContext } from "./effects/effect.js"
import type { EffectContext } from "./define-flow.js"

/** How a request's run starts: from a persisted snapshot (a resume) or from the input (a start). */
export interface RunOptions {
  /** The envelope's snapshot; `undefined` starts the machine anew with `input`. */
  readonly persisted: unknown
  readonly input: unknown
  /** What the effects receive: the request context with the flow's callback URL. */
  readonly ctx: EffectContext
  /** Milliseconds the run may take once the event is sent (effects included): `flowTimeout`. */
  readonly timeout: number
  /** xstate's inspection observer, when an inspector watches. */
  readonly inspect?: (event: InspectionEvent) => void
}

/** A snapshot where a run stops: ended (done, error, stopped) or resting at `awaiting-input`. */
function resting(snapshot: AnyMachineSnapshot): boolean {
  return snapshot.status !== "active" || snapshot.hasTag(AWAITING_INPUT)
}

/** What a flow store gave back looks like a persisted snapshot (the machine checks the rest). */
function isPersistedSnapshot(value: unknown): value is Snapshot<unknown> {
  return typeof value === "object" && value !== null && "status" in value && typeof value.status === "string"
}

/** The actor's machine snapshot; a restore that failed (no machine snapshot) throws its error as the cause. */
function snapshotOf(actor: AnyActor): AnyMachineSnapshot {
  const snapshot: unknown = actor.getSnapshot()
  if (isMachineSnapshot(snapshot)) return snapshot
  const cause = isPersistedSnapshot(snapshot) && "error" in snapshot ? snapshot.error : undefined
  throw new TypeError("the actor gave no machine snapshot", { cause })
}

/** One request's run of a flow machine on an xstate actor. */
export class FlowRun {
  /** The snapshot before the event: restored, or the initial one. */
  readonly before: AnyMachineSnapshot
  private readonly actor: AnyActor
  /** Subscribed before the actor starts, with an error listener: a failure is the run's, never an unhandled error. */
  private readonly subscription: Subscription
  /** While a send waits for the machine to rest or end: its promise's callbacks and its deadline's timer. */
  private waiting:
    | { resolve(snapshot: AnyMachineSnapshot): void; reject(error: FlowStateError): void; timer: ReturnType<typeof setTimeout> }
    | undefined

  constructor(
    machine: AnyStateMachine,
    private readonly options: RunOptions,
  ) {
    const { persisted, input, inspect } = options
    if (persisted !== undefined && !isPersistedSnapshot(persisted)) throw new TypeError("not a persisted snapshot")
    const base = { input, ...(inspect ? { inspect } : {}) }
    this.actor = createActor(machine, persisted === undefined ? base : { ...base, snapshot: persisted })
    bindEffectContext(this.actor.system, options.ctx)
    const changed = () => this.changed()
    this.subscription = this.actor.subscribe({ next: changed, error: changed })
    this.actor.start()
    this.before = snapshotOf(this.actor)
  }

  /**
   * Sends the request's event (one the resting state takes: `before.can(event)`); resolves with the
   * snapshot the machine rests or ends at (status `error` when it failed: an effect error it does not
   * handle, a guard or an action that threw); rejects with a `FlowStateError` after the timeout.
   */
  send(event: EventObject): Promise<AnyMachineSnapshot> {
    this.actor.send(event)
    const now = snapshotOf(this.actor)
    if (resting(now)) return Promise.resolve(now)
    const { timeout } = this.options
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(new FlowStateError(`The sign-in step did not finish within ${timeout} ms.`)), timeout)
      this.waiting = { resolve, reject, timer }
    })
  }

  /** The snapshot as the flow store keeps it (xstate's persisted snapshot). */
  persist(): unknown {
    return this.actor.getPersistedSnapshot()
  }

  /** Ends the run; effects still in flight reach nothing, a send still waiting fails. */
  stop(): void {
    this.subscription.unsubscribe()
    this.actor.stop()
    if (this.waiting) this.settle(new FlowStateError("The sign-in step was stopped before it rested or ended."))
  }

  /** The actor moved on: a waiting send resolves once the machine rests, ends or failed. */
  private changed(): void {
    if (!this.waiting) return
    const snapshot: unknown = this.actor.getSnapshot()
    if (isMachineSnapshot(snapshot) && resting(snapshot)) this.settle(snapshot)
  }

  /** A waiting send's end: the snapshot it came to, or the error it fails with. */
  private settle(end: AnyMachineSnapshot | FlowStateError): void {
    const waiting = this.waiting
    if (!waiting) return
    this.waiting = undefined
    clearTimeout(waiting.timer)
    if (end instanceof FlowStateError) waiting.reject(end)
    else waiting.resolve(end)
  }
}
