/**
 * The inspection stream: one redacted event per thing that happens in a flow run (request, transition,
 * effect start/end, persist, reply). Built from xstate's own `inspect` hook plus the engine's steps.
 * It carries state names, event types, effect names and error types only: never a context, a
 * parameter, a token, a code or a verifier, so it is safe to show in a browser or a terminal.
 */
import type { InspectionEvent as XStateInspectionEvent } from "xstate"
import type { InspectionEvent, Inspector, InspectOption } from "../../types/inspection.js"
export type { InspectionEvent, Inspector, InspectOption }

/** Dots a state value into one name: `{ a: "b" }` → `a.b`. */
export function stateName(value: unknown): string {
  if (typeof value === "string") return value
  if (value && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, child]) => `${key}.${stateName(child)}`)
      .join(",")
  }
  return String(value)
}

/** Starting, restoring and stopping the actor: the engine's doing, not the flow's. */
const LIFECYCLE: ReadonlySet<string> = new Set(["xstate.init", "xstate.stop"])

/**
 * What an event means in the flow's own words: its type, or for xstate's internal events the effect that
 * finished (`done: authorize`, `error: authorize`), the timer (`after <delay>`) or the region (`done`).
 * `effect` names an invoked effect by its id (default: the id itself).
 */
export function eventLabel(eventType: string, effect: (id: string) => string = (id) => id): string {
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType)
  if (done?.[1] !== undefined) return `done: ${effect(done[1])}`
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType)
  if (error?.[1] !== undefined) return `error: ${effect(error[1])}`
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType)
  if (after?.[1] !== undefined) return /^\d+$/.test(after[1]) ? `after ${after[1]}ms` : `after ${after[1]}`
  if (eventType.startsWith("xstate.done.state.")) return "done"
  return eventType
}

/**
 * An xstate `inspect` observer for one flow run, turning xstate's events into the redacted stream
 * (and, for `@statelyai/inspect` inspectors, passing xstate's events on with contexts redacted).
 *
 * The stream is in the flow's order: a transition, then the effects its target state starts (xstate
 * creates them before it reports the new state, so their starts wait for the transition), then their
 * outcome. Starting, restoring or stopping the actor (`xstate.init`, `xstate.stop`) and events that
 * changed nothing are not transitions; xstate's internal event names are told as `done: <effect>` /
 * `error: <effect>`.
 */
export function xstateObserver(
  emit: Inspector | undefined,
  raw: ((event: XStateInspectionEvent) => void) | undefined,
  base: () => Pick<InspectionEvent, "flowId" | "flow" | "provider">,
): (event: XStateInspectionEvent) => void {
  const starting: string[] = []
  let last: unknown
  const flushStarts = () => {
    for (const effect of starting.splice(0)) emit?.({ ...base(), at: Date.now(), type: "effect", effect, phase: "start" })
  }
  return (event) => {
    const safe = raw ? redactXState(event) : undefined
    if (raw && safe) raw(safe)
    if (!emit) return
    const isRoot = event.actorRef.sessionId === event.rootId
    if (event.type === "@xstate.snapshot") {
      const snapshot = event.snapshot as { value?: unknown }
      if (!isRoot || snapshot.value === undefined) return
      const changed = snapshot !== last
      last = snapshot
      if (changed && !LIFECYCLE.has(event.event.type)) {
        emit({ ...base(), at: Date.now(), type: "transition", state: stateName(snapshot.value), event: eventLabel(event.event.type) })
      }
      flushStarts()
      return
    }
    if (event.type === "@xstate.actor") {
      const id = (event.actorRef as { id?: string }).id
      if (!isRoot && id) starting.push(id)
      return
    }
    if (event.type === "@xstate.event" && event.actorRef.sessionId === event.rootId) {
      const type = event.event.type
      const outcome = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type)
      if (outcome?.[2] !== undefined) {
        emit({ ...base(), at: Date.now(), type: "effect", effect: outcome[2], phase: outcome[1] === "done" ? "done" : "error" })
      }
    }
  }
}

/**
 * xstate's event reduced to what is safe to show: actor creation, event types, and snapshots with
 * their context, input, output and error replaced. Actions and microsteps (which carry effect inputs
 * and event payloads) are dropped.
 */
function redactXState(event: XStateInspectionEvent): XStateInspectionEvent | undefined {
  switch (event.type) {
    case "@xstate.actor":
      return event
    case "@xstate.event":
      return { ...event, event: { type: event.event.type } }
    case "@xstate.snapshot": {
      const { status, value, tags } = event.snapshot as { status?: unknown; value?: unknown; tags?: unknown }
      const snapshot = { status, value, tags, context: "[redacted]" }
      return { ...event, event: { type: event.event.type }, snapshot: snapshot as never }
    }
    default:
      return undefined
  }
}

/** Splits `config.inspect` into the redacted-stream function and the raw xstate observer. */
export function inspectorsOf(option: InspectOption | undefined): {
  emit?: Inspector
  raw?: (event: XStateInspectionEvent) => void
} {
  if (!option) return {}
  if (typeof option === "function") return { emit: option }
  const observer = option.inspect
  const raw = typeof observer === "function" ? observer : observer.next?.bind(observer)
  return raw ? { raw } : {}
}
