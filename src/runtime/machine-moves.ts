/**
 * The move a flow machine makes on an event from a snapshot, worked out once per (atomic state,
 * transition) from the sets (machine-sets.ts) and the states' plans (machine-compile.ts): what
 * machine-step.ts runs, flattened, so that a step is one lookup and a walk over what actually runs. Where
 * no guard decides, the move is kept per (atomic state, event type). Where guards do, they are called here
 * each time, in xstate's order, when each is a plain function (inline, or named with its params): xstate's
 * generic choice (`getTransitionData`: a walk of the state value, its candidates and `evaluateGuard`)
 * is a dozen functions that run cold in a server, for one or two guard calls. Any other guard, a wildcard
 * descriptor or a guard that throws is left to xstate; its moves are kept per (transition, atomic state).
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from "xstate"
import {
  type Assignment,
  type Choice,
  type Compiled,
  GUARDED,
  type GuardCall,
  type Move,
  actionsOf,
  isRecord,
  planOf,
  template,
} from "./machine-compile.js"
import { type Transition, atomicOf, properAncestors, setsOf } from "./machine-sets.js"

/**
 * The move `event` makes from `snapshot`, or undefined when no transition takes it.
 * @example const move = moveOf(c, machine, snapshot, event)
 */
export function moveOf(c: Compiled, machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): Move | undefined {
  const atomic = atomicOf(snapshot._nodes)
  let byType = c.moves.get(atomic)
  if (!byType) c.moves.set(atomic, (byType = new Map()))
  let known = byType.get(event.type)
  if (known === undefined) byType.set(event.type, (known = firstKnown(c, machine, snapshot, event, atomic)))
  if (known === null) return undefined
  if (known === GUARDED) return chosenByXstate(c, machine, snapshot, event, atomic)
  return "candidates" in known ? chosen(c, machine, known, snapshot, event, atomic) : known
}

/**
 * What is kept for (atomic state, event type): the move when no guard decides (null: none), the
 * candidates when each guard is a plain function, else GUARDED (a wildcard descriptor on the way, or a
 * guard xstate resolves further: `and`, `or`, `not`, `stateIn`, a guard named by another).
 */
function firstKnown(c: Compiled, machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject, atomic: AnyStateNode) {
  const transitions: Transition[] = []
  let wildcards = false
  for (let n: AnyStateNode | undefined = atomic; n; n = n.parent) {
    for (const [descriptor, list] of n.transitions) {
      if (descriptor === event.type) transitions.push(...list)
      else if (descriptor.includes("*")) {
        wildcards = true
        transitions.push(...list.filter((t) => t.guard !== undefined))
      }
    }
  }
  if (transitions.every((t) => t.guard === undefined)) {
    const t = machine.getTransitionData(snapshot, event)[0]
    return t ? build(c, machine, t, snapshot._nodes) : null
  }
  // xstate orders wildcard candidates among a state's own: it chooses each time
  if (wildcards) return GUARDED
  const candidates: Choice["candidates"][number][] = []
  for (const transition of transitions) {
    const guard = transition.guard === undefined ? undefined : guardCall(machine, transition.guard)
    if (guard === null) return GUARDED
    candidates.push({ transition, guard, move: undefined })
  }
  return { candidates }
}

/** xstate's resolution of a guard (its `evaluateGuard`) when it ends in a plain function; null otherwise. */
function guardCall(machine: AnyStateMachine, guard: unknown): GuardCall | null {
  // an inline builtin (`and`, `or`, `not`, `stateIn`) is a function too, but xstate calls its `check`: in
  // xstate's production build calling the function itself answers false
  if (typeof guard === "function") return "check" in guard ? null : { check: guard as GuardCall["check"], params: undefined }
  const type = typeof guard === "string" ? guard : isRecord(guard) ? guard.type : undefined
  if (typeof type !== "string" || !Object.hasOwn(machine.implementations.guards, type)) return null
  const check: unknown = machine.implementations.guards[type]
  if (typeof check !== "function" || "check" in check) return null
  const params = isRecord(guard) && "params" in guard ? guard.params : undefined
  return { check: check as GuardCall["check"], params }
}

/** The first candidate whose guard passes (or that has none), as xstate's `getTransitionData` chooses it. */
function chosen(
  c: Compiled,
  machine: AnyStateMachine,
  choice: Choice,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
  atomic: AnyStateNode,
): Move | undefined {
  const args = { context: snapshot.context, event }
  for (const candidate of choice.candidates) {
    const guard = candidate.guard
    if (guard) {
      let passed: unknown
      try {
        const { params } = guard
        passed = guard.check(args, typeof params === "function" ? params(args) : params)
      } catch {
        // xstate evaluates the guards again and throws its own error for this one
        return chosenByXstate(c, machine, snapshot, event, atomic)
      }
      if (!passed) continue
    }
    candidate.move ??= build(c, machine, candidate.transition, snapshot._nodes)
    return candidate.move
  }
  return undefined
}

/** The move of the transition xstate chooses (`getTransitionData`), kept per (transition, atomic state). */
function chosenByXstate(
  c: Compiled,
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
  atomic: AnyStateNode,
): Move | undefined {
  const t = machine.getTransitionData(snapshot, event)[0]
  if (!t) return undefined
  let byAtomic = c.guardedMoves.get(t)
  if (!byAtomic) c.guardedMoves.set(t, (byAtomic = new Map()))
  let move = byAtomic.get(atomic)
  if (!move) byAtomic.set(atomic, (move = build(c, machine, t, snapshot._nodes)))
  return move
}

/** The move of transition `t` from the configuration `nodes`. */
function build(c: Compiled, machine: AnyStateMachine, t: Transition, nodes: readonly AnyStateNode[]): Move {
  const sets = setsOf(c.sets, t, nodes)
  const exit: Assignment[] = []
  const stops: string[] = []
  for (const s of sets.exit) {
    const plan = planOf(c, machine, s)
    exit.push(...plan.exit)
    for (const invoke of plan.invokes) stops.push(invoke.id)
  }
  const actions = actionsOf(c, machine, t)
  const enter: Move["enter"][number][] = []
  let final: AnyStateNode | undefined
  for (const s of sets.enter) {
    const plan = planOf(c, machine, s)
    if (plan.entry.length > 0 || plan.invokes.length > 0) enter.push({ entry: plan.entry, invokes: plan.invokes })
    if (s.type === "final") final = s
  }
  const finalExit = final ? [sets.atomic, ...properAncestors(sets.atomic, undefined)].flatMap((s) => planOf(c, machine, s).exit) : []
  return {
    exit,
    stops,
    actions,
    enter,
    final,
    finalExit,
    runs: exit.length > 0 || stops.length > 0 || actions.length > 0 || enter.length > 0,
    sameStates: sets.sameStates,
    template: template(c, machine, sets.atomic),
  }
}
