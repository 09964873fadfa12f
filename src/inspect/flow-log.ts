/**
 * The inspector's memory: the most recent flows (by flow id) with their event timelines, bounded in
 * both directions, and the listeners that follow it live.
 */
import type { InspectionEvent } from "../runtime/engine/inspection.js"

/** Where a recorded flow is: handling a request, resting until the next one, or ended. */
export type FlowStatus = "running" | "resting" | "done" | "failed"

/** A flow as the inspector last saw it. */
export interface FlowSummary {
  /** The flow run's id; runs that failed before they had one get `unknown-<n>`. */
  readonly flowId: string
  readonly flow: string
  readonly provider: string
  /** The latest state (`a.b` for nested states). */
  readonly state: string
  readonly status: FlowStatus
  readonly startedAt: number
  readonly updatedAt: number
  /** While resting: when its pending state expires (ms since the epoch). */
  readonly expiresAt?: number
  /** How many of its events were dropped from the front of `events`. */
  readonly dropped: number
}

/** A recorded flow with its events, oldest first. */
export interface FlowRecord extends FlowSummary {
  readonly events: readonly InspectionEvent[]
}

/** What a listener receives: the event and the summary of its flow after it. */
export interface FlowUpdate {
  readonly seq: number
  readonly event: InspectionEvent
  readonly flow: FlowSummary
}

function next(record: FlowRecord | undefined, key: string, event: InspectionEvent, maxEvents: number): FlowRecord {
  const events = [...(record?.events ?? []), event]
  const overflow = Math.max(0, events.length - maxEvents)
  const base = {
    flowId: key,
    flow: event.flow,
    provider: event.provider,
    state: record?.state ?? "",
    status: record?.status ?? ("running" as FlowStatus),
    startedAt: record?.startedAt ?? event.at,
    updatedAt: event.at,
    dropped: (record?.dropped ?? 0) + overflow,
    events: events.slice(overflow),
  }
  switch (event.type) {
    case "request":
      return { ...base, status: "running" }
    case "transition":
      return { ...base, ...(record?.expiresAt ? { expiresAt: record.expiresAt } : {}), state: event.state }
    case "effect":
      return { ...base, ...(record?.expiresAt ? { expiresAt: record.expiresAt } : {}) }
    case "persist":
      return { ...base, state: event.state, status: "resting", expiresAt: event.expiresAt }
    case "end":
      return { ...base, state: event.state, status: event.ok ? "done" : "failed" }
  }
}

export function summaryOf(record: FlowRecord): FlowSummary {
  const { events: _events, ...summary } = record
  return summary
}

export class FlowLog {
  readonly #flows = new Map<string, FlowRecord>()
  readonly #listeners = new Set<(update: FlowUpdate) => void>()
  #seq = 0
  #unknown = 0

  constructor(
    readonly maxFlows: number,
    readonly maxEvents: number,
  ) {}

  /** Records an event; the least recently active flow is forgotten past `maxFlows`. */
  add(event: InspectionEvent): FlowRecord {
    const key = event.flowId === "unknown" ? `unknown-${++this.#unknown}` : event.flowId
    const record = next(this.#flows.get(key), key, event, this.maxEvents)
    this.#flows.delete(key)
    this.#flows.set(key, record)
    for (const oldest of this.#flows.keys()) {
      if (this.#flows.size <= this.maxFlows) break
      this.#flows.delete(oldest)
    }
    const update = { seq: ++this.#seq, event, flow: summaryOf(record) }
    for (const listener of this.#listeners) listener(update)
    return record
  }

  /** The flows, most recently active first. */
  list(): FlowRecord[] {
    return [...this.#flows.values()].reverse()
  }

  get seq(): number {
    return this.#seq
  }

  get listeners(): number {
    return this.#listeners.size
  }

  subscribe(listener: (update: FlowUpdate) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }
}
