/**
 * What machine-step.ts needs of a flow machine, worked out once per machine: whether it takes the
 * machine (`compiledOf`, null when not), the states' entry and exit assignments and effects, each
 * transition's assignments, the transition an event type takes from a state when no guard decides, and
 * a snapshot template per state.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject, StateValue } from "xstate"
import { AWAITING_INPUT } from "../machines/types.js"
import { type EffectStarter, effectStarter } from "./effects/effect.js"
import type { SetsCache, Transition } from "./machine-sets.js"

/** What is worked out once per machine the direct runner takes. */
export interface Compiled {
  /** A snapshot per atomic or final state with an empty context, copied with the real one. */
  readonly templates: Map<AnyStateNode, AnyMachineSnapshot>
  readonly sets: SetsCache
  /**
   * The atomic state the machine starts in when starting runs nothing but the context factory (no
   * entry action, no effect on the way down from the root); null when it runs more. Found on first use.
   */
  initial?: AnyStateNode | null
  /** What entering and leaving each state runs, resolved once. */
  readonly plans: Map<AnyStateNode, StatePlan>
  /** Each transition's assignments, resolved once. */
  readonly actions: WeakMap<Transition, readonly Assignment[]>
  /**
   * The move an event type makes from an atomic state (null: none), for the pairs where no candidate on
   * the way to the root has a guard (the answer then depends on nothing else); where one has, the
   * candidates whose guards machine-moves.ts evaluates itself ({@link Choice}), or GUARDED for xstate to choose.
   */
  readonly moves: Map<AnyStateNode, Map<string, Move | null | Choice | typeof GUARDED>>
  /** The moves of the transitions guards choose, by transition and the atomic state it is taken from. */
  readonly guardedMoves: WeakMap<Transition, Map<AnyStateNode, Move>>
}

/** A transition from one atomic state, worked out once (machine-moves.ts), as machine-step.ts runs it. */
export interface Move {
  /** The exit assignments of the states left, innermost first. */
  readonly exit: readonly Assignment[]
  /** The invoke ids of the states left: their effects' outcomes reach nothing any more. */
  readonly stops: readonly string[]
  /** The transition's own assignments. */
  readonly actions: readonly Assignment[]
  /** Each state entered that runs something, outermost first: its entry assignments, then its effects. */
  readonly enter: readonly Pick<StatePlan, "entry" | "invokes">[]
  /** The final state entered (the machine ends), if any. */
  readonly final: AnyStateNode | undefined
  /** When it ends: the exit assignments of every state of the configuration it ends in, innermost first. */
  readonly finalExit: readonly Assignment[]
  /** Whether the step runs anything (an assignment, an effect started or stopped). */
  readonly runs: boolean
  /** The states left are the states entered (or none). */
  readonly sameStates: boolean
  /** The snapshot template of the configuration reached. */
  readonly template: AnyMachineSnapshot
}

/** An `assign` action resolved: its assignment and its params (a mapper, a value, or none). */
export interface Assignment {
  readonly assignment: Mapper | Record<string, unknown>
  readonly params: unknown
}

/** What a state runs: its entry and exit assignments and its effects (by invoke id, with their input). */
export interface StatePlan {
  readonly entry: readonly Assignment[]
  readonly exit: readonly Assignment[]
  readonly invokes: readonly { readonly id: string; readonly start: EffectStarter; readonly input: unknown }[]
}

/** A (state, event type) whose transition xstate must choose each time (a guard decides). */
export const GUARDED = Symbol("guarded")

/** A guard as xstate calls it: its implementation, with its params (a value, or a mapper of the context and event). */
export interface GuardCall {
  readonly check: (args: { context: Context; event: EventObject }, params: unknown) => unknown
  readonly params: unknown
}

/**
 * The transitions an event type may take from an atomic state, in xstate's order (the state's own, then
 * each ancestor's), when each guard is a plain function (named or inline): the first whose guard passes
 * (or that has none) is taken. Its move is worked out on first use.
 */
export interface Choice {
  readonly candidates: readonly { readonly transition: Transition; readonly guard: GuardCall | undefined; move: Move | undefined }[]
}

const compiled = new WeakMap<AnyStateMachine, Compiled | null>()

/** What xstate hands an assignment, an invoke's input mapper or the machine's output mapper. */
export interface MapperArgs {
  context: Context
  event: EventObject
  spawn: () => never
  self: unknown
  system: unknown
}

/** A flow machine's context, as the assignments see it. */
export type Context = Record<string, unknown>
/** An assignment, input or output mapper as xstate calls it. */
export type Mapper = (args: MapperArgs, params: unknown) => unknown

/** The machine's compiled data, or null when the direct runner does not take it; decided once per machine. */
export function compiledOf(machine: AnyStateMachine): Compiled | null {
  let entry = compiled.get(machine)
  if (entry === undefined) {
    entry = qualifies(machine)
      ? {
          templates: new Map(),
          sets: new WeakMap(),
          plans: new Map(),
          actions: new WeakMap(),
          moves: new Map(),
          guardedMoves: new WeakMap(),
        }
      : null
    compiled.set(machine, entry)
  }
  return entry
}

function qualifies(machine: AnyStateMachine): boolean {
  const root = machine.root
  const actionOk = (action: unknown) => assignmentOf(machine, action) !== undefined
  const nodeOk = (node: AnyStateNode, underInvoke: boolean): boolean => {
    const invoking = underInvoke || node.invoke.length > 0
    // a state that rests must not rest with an effect in flight
    if (node.tags.includes(AWAITING_INPUT) && invoking) return false
    if (node.type === "parallel" || node.type === "history") return false
    if (node.type === "final" && (node.parent !== root || node.output !== undefined)) return false
    if (node.type === "compound" && node.initial.actions.length > 0) return false
    if (node.after.length > 0 || (node.always?.length ?? 0) > 0) return false
    if (!node.invoke.every((invoke, i) => !invoke.onSnapshot && effectOf(machine, node, i) !== undefined)) return false
    const transitions = [...node.transitions.values()].flat()
    if (transitions.some((t) => (t.target?.length ?? 0) > 1 || t.target?.some((s) => s.type === "history"))) return false
    const actions = [...node.entry, ...node.exit, ...transitions.flatMap((t) => t.actions)]
    return actions.every(actionOk) && Object.values(node.states).every((child) => nodeOk(child, invoking))
  }
  return (root.output === undefined || typeof root.output === "function") && nodeOk(root, false) && readsConfiguration(machine)
}

/**
 * The runner reads the states a snapshot is in from xstate's resolved snapshot (`_nodes`, the state
 * nodes of its configuration): an xstate whose snapshots do not carry them that way runs on the actor.
 */
function readsConfiguration(machine: AnyStateMachine): boolean {
  let leaf: AnyStateNode = machine.root
  for (let next = Object.values(leaf.states)[0]; next; next = Object.values(next.states)[0]) leaf = next
  try {
    const probe: { _nodes?: unknown } = machine.resolveState({ value: stateValueOf(leaf.path), context: {} })
    return Array.isArray(probe._nodes) && probe._nodes.includes(leaf) && probe._nodes.includes(machine.root)
  } catch {
    return false
  }
}

/** The effect a state's `i`th invoke runs: named in the machine's actors, or given inline. */
function effectOf(machine: AnyStateMachine, node: AnyStateNode, i: number): EffectStarter | undefined {
  const src = node.invoke[i]?.src
  const inline: unknown = [node.config.invoke].flat()[i]
  const logic: unknown =
    (typeof src === "string" ? machine.implementations.actors[src] : undefined) ?? (isRecord(inline) ? inline.src : undefined)
  return isRecord(logic) ? effectStarter(logic) : undefined
}

/** A non-null object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

/** A function, called as a mapper. */
export function isFunction(value: unknown): value is Mapper {
  return typeof value === "function"
}

/** The assignment of an `assign` action (inline, by name, or `{ type, params }`); undefined for any other action. */
function assignmentOf(machine: AnyStateMachine, action: unknown): Mapper | Record<string, unknown> | undefined {
  const named = machine.implementations.actions
  const resolved: unknown = typeof action === "string" ? named[action] : isRecord(action) ? named[String(action.type)] : action
  if (!isFunction(resolved) || !("type" in resolved) || resolved.type !== "xstate.assign" || !("assignment" in resolved)) return undefined
  const assignment: unknown = resolved.assignment
  return isFunction(assignment) || isRecord(assignment) ? assignment : undefined
}

/** The `spawn` the direct runner hands to mappers: spawning is not part of the subset it takes. */
export const noSpawn = (): never => {
  throw new TypeError("spawn() in an assign is not supported by the engine's direct runner")
}

/** The state value of a path: `["a", "b"]` → `{ a: "b" }`. */
function stateValueOf(path: readonly string[]): StateValue {
  const [head, ...rest] = path
  if (head === undefined) return {}
  return rest.length === 0 ? head : { [head]: stateValueOf(rest) }
}

/** xstate's snapshot of the configuration ending in `atomic`, with an empty context: copied with the real one. */
export function template(c: Compiled, machine: AnyStateMachine, atomic: AnyStateNode): AnyMachineSnapshot {
  let snapshot = c.templates.get(atomic)
  if (!snapshot) {
    snapshot = machine.resolveState({ value: stateValueOf(atomic.path), context: {} })
    c.templates.set(atomic, snapshot)
  }
  return snapshot
}

/** The atomic state a start rests in, when entering the root and its initial states runs no action and no effect. */
export function quietInitial(machine: AnyStateMachine): AnyStateNode | null {
  let node: AnyStateNode = machine.root
  for (;;) {
    if (node.entry.length > 0 || node.invoke.length > 0) return null
    if (node.type !== "compound") return node.type === "atomic" ? node : null
    const next = node.initial.target[0]
    if (!next || node.initial.target.length > 1) return null
    node = next
  }
}

function resolveAll(machine: AnyStateMachine, actions: readonly unknown[]): readonly Assignment[] {
  return actions.map((action) => {
    const assignment = assignmentOf(machine, action)
    if (!assignment) throw new TypeError("stepMachine: an action that is not an assign")
    const params = isRecord(action) && !isFunction(action) && "params" in action ? action.params : undefined
    return { assignment, params }
  })
}

/** What entering and leaving `node` runs, resolved on first use. */
export function planOf(c: Compiled, machine: AnyStateMachine, node: AnyStateNode): StatePlan {
  let plan = c.plans.get(node)
  if (!plan) {
    const invokes = node.invoke.map((invoke, i) => {
      const start = effectOf(machine, node, i)
      if (!start) throw new TypeError(`stepMachine: "${invoke.src}" is not an effect`)
      return { id: invoke.id, start, input: invoke.input }
    })
    plan = { entry: resolveAll(machine, node.entry), exit: resolveAll(machine, node.exit), invokes }
    c.plans.set(node, plan)
  }
  return plan
}

/** The assignments of transition `t`, resolved on first use. */
export function actionsOf(c: Compiled, machine: AnyStateMachine, t: Transition): readonly Assignment[] {
  let actions = c.actions.get(t)
  if (!actions) c.actions.set(t, (actions = resolveAll(machine, t.actions)))
  return actions
}
