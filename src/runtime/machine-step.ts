/**
 * One macrostep of a flow machine, computed without xstate's per-step snapshot clones and child actors,
 * for the machines whose features are a small, checked subset of statecharts: atomic and compound states
 * (any depth), final states directly under the root, one target per transition (any level, `reenter`
 * included), guards (evaluated by xstate itself: `machine.getTransitionData`), `assign` actions on
 * entry, exit and transitions, and effects invoked by states. Everything else (parallel or history
 * states, eventless or delayed transitions, other actions, other actor logic) makes `steppable` false and
 * the machine runs on xstate's own `transition` (machine-run.ts).
 *
 * The order is SCXML's, as xstate's `microstep` follows it: exit the states left (innermost first: their
 * `exit` actions, then their effects stopped), the transition's actions, enter the states entered
 * (outermost first: `entry` actions, then their effects started with the input resolved from the context
 * at that point); entering a final state ends the machine with the root's `output`, then runs the exit
 * actions of every state. An `xstate.error.actor.*` event no transition takes fails the machine. The
 * snapshots made here are xstate's: a copy of the snapshot xstate builds for the same configuration.
 */
import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from "xstate"
import type { EffectStarter } from "./effects/effect.js"
import {
  type Assignment,
  type Context,
  type MapperArgs,
  compiledOf,
  isFunction,
  isRecord,
  noSpawn,
  quietInitial,
  template,
} from "./machine-compile.js"
import { moveOf } from "./machine-moves.js"

/** What a step asks its runner to do besides the new snapshot: effects to start and to forget. */
export interface StepSink {
  startEffect(id: string, start: EffectStarter, input: unknown): void
  /** The state that invoked it was left: its outcome reaches nothing. */
  stopEffect(id: string): void
  /** The machine ended: every effect still in flight is forgotten. */
  stopEffects(): void
}

/**
 * Whether `stepMachine` takes `machine` (the subset in the file's comment); decided once per machine.
 * @example if (steppable(machine)) snapshot = stepMachine(machine, snapshot, event, sink, self)
 */
export function steppable(machine: AnyStateMachine): boolean {
  return compiledOf(machine) !== null
}

/**
 * The machine's initial snapshot with `input`, made as xstate's `getInitialSnapshot` makes it (the
 * context factory's result copied, the initial states' snapshot) without its initial microstep, when
 * starting runs nothing else (no entry action, no effect); undefined otherwise, and when the factory
 * throws or spawns: the caller then asks xstate, which answers those cases itself.
 * @example const start = startSnapshot(machine, { provider: "credentials", now }, self) ?? machine.getInitialSnapshot(scope, input)
 */
export function startSnapshot(machine: AnyStateMachine, input: unknown, self: unknown): AnyMachineSnapshot | undefined {
  const c = compiledOf(machine)
  if (!c) return undefined
  if (c.initial === undefined) c.initial = quietInitial(machine)
  if (!c.initial) return undefined
  const factory: unknown = machine.config.context
  let context: Context
  if (typeof factory === "function") {
    try {
      context = Object.assign({}, factory({ spawn: noSpawn, input, self }))
    } catch {
      return undefined
    }
  } else {
    context = isRecord(factory) ? factory : {}
  }
  return { ...template(c, machine, c.initial), context, status: "active", output: undefined, error: undefined }
}

/** `context` after `assignments` (xstate's `assign`: each result merged into a copy). */
function assignAll(assignments: readonly Assignment[], context: Context, event: EventObject, self: unknown): Context {
  for (const { assignment, params } of assignments) {
    const resolved = isFunction(params) ? params({ context, event, spawn: noSpawn, self, system: undefined }, undefined) : params
    const args: MapperArgs = { context, event, spawn: noSpawn, self, system: undefined }
    let partial: unknown
    if (isFunction(assignment)) partial = assignment(args, resolved)
    else {
      const update: Context = {}
      for (const key of Object.keys(assignment)) {
        const prop = assignment[key]
        update[key] = isFunction(prop) ? prop(args, resolved) : prop
      }
      partial = update
    }
    context = Object.assign({}, context, partial)
  }
  return context
}

/**
 * One macrostep of `machine` from `snapshot` over `event` (see the file's comment). Returns the same
 * snapshot when the event changes nothing (no transition taken, or one without effect).
 * @example const next = stepMachine(machine, snapshot, { type: "SUBMIT", params, now }, sink, self)
 */
export function stepMachine(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
  sink: StepSink,
  self: unknown,
): AnyMachineSnapshot {
  const c = compiledOf(machine)
  if (!c) throw new TypeError("stepMachine: the machine is not steppable")
  const move = moveOf(c, machine, snapshot, event)
  if (!move) {
    if (!event.type.startsWith("xstate.error.actor")) return snapshot
    return { ...snapshot, status: "error", error: "error" in event ? event.error : undefined }
  }
  // as xstate: the same snapshot when no action runs and the states are the same
  if (!move.runs && move.sameStates) return snapshot
  let context: Context = snapshot.context
  if (move.exit.length > 0) context = assignAll(move.exit, context, event, self)
  for (const id of move.stops) sink.stopEffect(id)
  if (move.actions.length > 0) context = assignAll(move.actions, context, event, self)
  for (const state of move.enter) {
    if (state.entry.length > 0) context = assignAll(state.entry, context, event, self)
    for (const invoke of state.invokes) {
      const input = isFunction(invoke.input)
        ? invoke.input({ context, event, self, spawn: noSpawn, system: undefined }, undefined)
        : invoke.input
      sink.startEffect(invoke.id, invoke.start, input)
    }
  }
  const final = move.final
  if (!final) return { ...move.template, context, status: "active", output: undefined, error: undefined }
  const root = machine.root
  const doneEvent = { type: `xstate.done.state.${final.id}`, output: undefined }
  const output = isFunction(root.output)
    ? root.output({ context, event: doneEvent, self, spawn: noSpawn, system: undefined }, undefined)
    : undefined
  if (move.finalExit.length > 0) context = assignAll(move.finalExit, context, event, self)
  sink.stopEffects()
  return { ...move.template, context, status: "done", output, error: undefined }
}
