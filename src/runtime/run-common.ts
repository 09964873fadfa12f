/**
 * What the engine's two runners share: a request's run of a flow machine (restored or started, sent the
 * request's one event, run to rest or end, persisted) and the test of a resting snapshot.
 */
import type { AnyMachineSnapshot, EventObject, InspectionEvent, Snapshot } from "xstate"
import { AWAITING_INPUT } from "../machines/types.js"
import type { EffectContext } from "./flow.js"

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

/** One request's run of a flow machine. */
export interface MachineRun {
  /** The snapshot before the event: restored, or the initial one. */
  readonly before: AnyMachineSnapshot
  /**
   * Sends the request's event; gives the snapshot the machine rests or ends at (status `error` when it
   * failed: an effect error it does not handle, a guard or an action that threw), or `undefined` when the
   * state does not take the event: at once when nothing had to be awaited, else as a promise, which
   * rejects with a `FlowStateError` after the timeout.
   */
  send(event: EventObject): AnyMachineSnapshot | undefined | Promise<AnyMachineSnapshot | undefined>
  /** The snapshot as the flow store keeps it (xstate's persisted snapshot). */
  persist(snapshot: AnyMachineSnapshot): unknown
  /** Ends the run; effects still in flight reach nothing. */
  stop(): void
}

/** A snapshot where a run stops: ended (done, error, stopped) or resting at `awaiting-input`. */
export function resting(snapshot: AnyMachineSnapshot): boolean {
  return snapshot.status !== "active" || snapshot.hasTag(AWAITING_INPUT)
}

/** What a flow store gave back looks like a persisted snapshot (the machine checks the rest). */
export function isPersistedSnapshot(value: unknown): value is Snapshot<unknown> {
  return typeof value === "object" && value !== null && "status" in value && typeof value.status === "string"
}
