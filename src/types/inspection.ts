/**
 * The inspection stream `config.inspect` receives, and what that option accepts. Types only.
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

/** One event of the redacted inspection stream `config.inspect` receives: a request, transition, effect, persist or end. */
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
export type InspectOption =
  | Inspector
  | { inspect: { next?: (event: XStateInspectionEvent) => void } | ((event: XStateInspectionEvent) => void) }

/** The inspection stream's receivers of one config: authchart's redacted events, xstate's raw ones. */
export interface Inspectors {
  readonly emit?: Inspector
  readonly raw?: (event: XStateInspectionEvent) => void
}
