/**
 * The inspection stream: one redacted event per thing that happens in a flow run (request, transition,
 * effect start/end, persist, reply). Built from xstate's own `inspect` hook plus the engine's steps.
 * It carries state names, event types, effect names and error types only: never a context, a
 * parameter, a token, a code or a verifier, so it is safe to show in a browser or a terminal.
 */
import type { InspectionEvent as XStateInspectionEvent } from "xstate"

interface Base {
  /** One id per flow (stable across its requests); the flow cookie or Redis key carries it. */
  readonly flowId: string
  /** The flow definition's id (`credentials`, `oauth`, `email`, …). */
  readonly flow: string
  readonly provider: string
  /** Milliseconds since the epoch. */
  readonly at: number
}

export type InspectionEvent =
  | (Base & { readonly type: "request"; readonly method: string; readonly action: string; readonly event: string })
  | (Base & { readonly type: "transition"; readonly state: string; readonly event: string })
  | (Base & { readonly type: "effect"; readonly effect: string; readonly phase: "start" | "done" | "error" })
  | (Base & { readonly type: "persist"; readonly state: string; readonly expiresAt: number })
  | (Base & { readonly type: "end"; readonly state: string; readonly ok: boolean; readonly errorType?: string })

/** Receives the redacted inspection stream. */
export type Inspector = (event: InspectionEvent) => void

/**
 * What `config.inspect` accepts: a function receiving authchart's redacted events, or an inspector
 * object from `@statelyai/inspect` (anything with an `inspect` observer), which receives xstate's own
 * events with every snapshot's context replaced by `"[redacted]"`.
 */
export type InspectOption = Inspector | { inspect: { next?: (event: XStateInspectionEvent) => void } | ((event: XStateInspectionEvent) => void) }

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

function effectName(eventType: string, prefix: string): string {
  return eventType.slice(prefix.length)
}

/**
 * An xstate `inspect` observer for one flow run, turning xstate's events into the redacted stream
 * (and, for `@statelyai/inspect` inspectors, passing xstate's events on with contexts redacted).
 */
export function xstateObserver(
  emit: Inspector | undefined,
  raw: ((event: XStateInspectionEvent) => void) | undefined,
  base: () => Omit<Base, "at">,
): (event: XStateInspectionEvent) => void {
  return (event) => {
    const safe = raw ? redactXState(event) : undefined
    if (raw && safe) raw(safe)
    if (!emit) return
    const at = Date.now()
    const isRoot = event.actorRef.sessionId === event.rootId
    if (event.type === "@xstate.snapshot") {
      const snapshot = event.snapshot as { value?: unknown; status?: string }
      if (isRoot && snapshot.value !== undefined) {
        emit({ ...base(), at, type: "transition", state: stateName(snapshot.value), event: event.event.type })
      }
      return
    }
    if (event.type === "@xstate.actor") {
      const id = (event.actorRef as { id?: string }).id
      if (!isRoot && id) emit({ ...base(), at, type: "effect", effect: id, phase: "start" })
      return
    }
    if (event.type === "@xstate.event") {
      const type = event.event.type
      if (type.startsWith("xstate.done.actor.")) {
        emit({ ...base(), at, type: "effect", effect: effectName(type, "xstate.done.actor."), phase: "done" })
      } else if (type.startsWith("xstate.error.actor.")) {
        emit({ ...base(), at, type: "effect", effect: effectName(type, "xstate.error.actor."), phase: "error" })
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
