/**
 * The move a flow machine makes on an event from a snapshot, worked out once per (atomic state,
 * transition) from the sets (machine-sets.ts) and the states' plans (machine-compile.ts): what
 * machine-step.ts runs, flattened, so that a step is one lookup and a walk over what actually runs. Where
 * no guard decides, the move is kept per (atomic state, event type); where one does, xstate chooses the
 * transition each time (`getTransitionData`) and the move is kept per (transition, atomic state).
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from "xstate"
import { type Assignment, type Compiled, GUARDED, type Move, actionsOf, planOf, template } from "./machine-compile.js"
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
  if (known === undefined) {
    let guarded = false
    for (let n: AnyStateNode | undefined = atomic; n && !guarded; n = n.parent) guarded = guardedOn(n, event.type)
    if (guarded) known = GUARDED
    else {
      const t = machine.getTransitionData(snapshot, event)[0]
      known = t ? build(c, machine, t, snapshot._nodes) : null
    }
    byType.set(event.type, known)
  }
  if (known !== GUARDED) return known ?? undefined
  const t = machine.getTransitionData(snapshot, event)[0]
  if (!t) return undefined
  let byAtomic = c.guardedMoves.get(t)
  if (!byAtomic) c.guardedMoves.set(t, (byAtomic = new Map()))
  let move = byAtomic.get(atomic)
  if (!move) byAtomic.set(atomic, (move = build(c, machine, t, snapshot._nodes)))
  return move
}

/** Whether any transition `node` may take on `type` (its exact ones, and every wildcard one) has a guard. */
function guardedOn(node: AnyStateNode, type: string): boolean {
  for (const [descriptor, transitions] of node.transitions) {
    if ((descriptor === type || descriptor.includes("*")) && transitions.some((t) => t.guard !== undefined)) return true
  }
  return false
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
