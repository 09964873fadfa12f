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
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject, StateValue } from "xstate"
import { AWAITING_INPUT } from "../machines/types.js"
import { type EffectStarter, effectStarter } from "./effects/effect.js"

/** What a step asks its runner to do besides the new snapshot: effects to start and to forget. */
export interface StepSink {
  startEffect(id: string, start: EffectStarter, input: unknown): void
  /** The state that invoked it was left: its outcome reaches nothing. */
  stopEffect(id: string): void
  /** The machine ended: every effect still in flight is forgotten. */
  stopEffects(): void
}

/** A transition's exit and entry sets from one configuration (its atomic state), computed once. */
interface Sets {
  /** Innermost first. */
  readonly exit: readonly AnyStateNode[]
  /** Outermost first. */
  readonly enter: readonly AnyStateNode[]
  /** The atomic (or final) state the configuration ends in. */
  readonly atomic: AnyStateNode
  /** The transition leaves the same states it enters (or none). */
  readonly sameStates: boolean
}

type Transition = ReturnType<AnyStateMachine["getTransitionData"]>[number]

interface Compiled {
  /** A snapshot per atomic or final state with an empty context, copied with the real one. */
  readonly templates: Map<AnyStateNode, AnyMachineSnapshot>
  readonly sets: WeakMap<Transition, Map<AnyStateNode, Sets>>
  /**
   * The atomic state the machine starts in when starting runs nothing but the context factory (no
   * entry action, no effect on the way down from the root); null when it runs more. Found on first use.
   */
  initial?: AnyStateNode | null
}

const compiled = new WeakMap<AnyStateMachine, Compiled | null>()

/** What xstate hands an assignment, an invoke's input mapper or the machine's output mapper. */
interface MapperArgs {
  context: Context
  event: EventObject
  spawn: () => never
  self: unknown
  system: unknown
}

type Context = Record<string, unknown>
type Mapper = (args: MapperArgs, params: unknown) => unknown

/**
 * Whether `stepMachine` takes `machine` (the subset in the file's comment); decided once per machine.
 * @example if (steppable(machine)) snapshot = stepMachine(machine, snapshot, event, sink, self)
 */
export function steppable(machine: AnyStateMachine): boolean {
  return compiledOf(machine) !== null
}

function compiledOf(machine: AnyStateMachine): Compiled | null {
  let entry = compiled.get(machine)
  if (entry === undefined) {
    entry = qualifies(machine) ? { templates: new Map(), sets: new WeakMap() } : null
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

function isFunction(value: unknown): value is Mapper {
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

const noSpawn = (): never => {
  throw new TypeError("spawn() in an assign is not supported by the engine's direct runner")
}

/** xstate's `isDescendant`: `child` is a proper descendant of `parent` (any state when `parent` is undefined). */
function isDescendant(child: AnyStateNode, parent: AnyStateNode | undefined): boolean {
  let marker = child
  while (marker.parent && marker.parent !== parent) marker = marker.parent
  return marker.parent === parent
}

function properAncestors(node: AnyStateNode, upTo: AnyStateNode | undefined): AnyStateNode[] {
  const out: AnyStateNode[] = []
  if (upTo === node) return out
  for (let m = node.parent; m && m !== upTo; m = m.parent) out.push(m)
  return out
}

/** xstate's transition domain for a one-target transition (no history states). */
function domainOf(t: Transition, target: AnyStateNode): AnyStateNode | undefined {
  if (!t.reenter && (target === t.source || isDescendant(target, t.source))) return t.source
  const lca = properAncestors(target, undefined).find((anc) => isDescendant(t.source, anc))
  if (lca) return lca
  return t.reenter ? undefined : t.source.machine.root
}

function setsOf(c: Compiled, t: Transition, nodes: readonly AnyStateNode[]): Sets {
  const current = atomicOf(nodes)
  let byAtomic = c.sets.get(t)
  if (!byAtomic) {
    byAtomic = new Map()
    c.sets.set(t, byAtomic)
  }
  let sets = byAtomic.get(current)
  if (!sets) {
    sets = computeSets(t, nodes, current)
    byAtomic.set(current, sets)
  }
  return sets
}

function atomicOf(nodes: readonly AnyStateNode[]): AnyStateNode {
  let deepest = nodes[0]
  for (const n of nodes) if (deepest === undefined || n.order > deepest.order) deepest = n
  if (!deepest) throw new TypeError("a snapshot without states")
  return deepest
}

function computeSets(t: Transition, nodes: readonly AnyStateNode[], current: AnyStateNode): Sets {
  const target = t.target?.[0]
  if (!target) return { exit: [], enter: [], atomic: current, sameStates: true }
  const domain = domainOf(t, target)
  const exit = nodes.filter((n) => (t.reenter && n === t.source && n === domain) || isDescendant(n, domain))
  const enter = new Set<AnyStateNode>()
  if (t.source !== target || t.source !== domain || t.reenter) enter.add(target)
  for (let s: AnyStateNode = target; s.type === "compound"; ) {
    const initial = s.initial.target[0]
    if (!initial) break
    for (const anc of properAncestors(initial, s)) enter.add(anc)
    enter.add(initial)
    s = initial
  }
  const reentrancy = !t.source.parent && t.reenter ? undefined : domain
  for (const anc of properAncestors(target, domain)) if (!reentrancy || isDescendant(anc, reentrancy)) enter.add(anc)
  const kept = nodes.filter((n) => !exit.includes(n))
  const after = [...kept, ...enter]
  return {
    exit: exit.sort((a, b) => b.order - a.order),
    enter: [...enter].sort((a, b) => a.order - b.order),
    atomic: atomicOf(after),
    sameStates: exit.length === enter.size && exit.every((n) => enter.has(n)),
  }
}

/** The state value of a path: `["a", "b"]` → `{ a: "b" }`. */
function stateValueOf(path: readonly string[]): StateValue {
  const [head, ...rest] = path
  if (head === undefined) return {}
  return rest.length === 0 ? head : { [head]: stateValueOf(rest) }
}

function template(c: Compiled, machine: AnyStateMachine, atomic: AnyStateNode): AnyMachineSnapshot {
  let snapshot = c.templates.get(atomic)
  if (!snapshot) {
    snapshot = machine.resolveState({ value: stateValueOf(atomic.path), context: {} })
    c.templates.set(atomic, snapshot)
  }
  return snapshot
}

/** The atomic state a start rests in, when entering the root and its initial states runs no action and no effect. */
function quietInitial(machine: AnyStateMachine): AnyStateNode | null {
  let node: AnyStateNode = machine.root
  for (;;) {
    if (node.entry.length > 0 || node.invoke.length > 0) return null
    if (node.type !== "compound") return node.type === "atomic" ? node : null
    const next = node.initial.target[0]
    if (!next || node.initial.target.length > 1) return null
    node = next
  }
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
  const [t] = machine.getTransitionData(snapshot, event)
  if (!t) {
    if (!event.type.startsWith("xstate.error.actor")) return snapshot
    return { ...snapshot, status: "error", error: "error" in event ? event.error : undefined }
  }
  const sets = setsOf(c, t, snapshot._nodes)
  let changed = false
  let context: Context = snapshot.context
  const run = (actions: readonly unknown[]) => {
    for (const action of actions) {
      const assignment = assignmentOf(machine, action)
      if (!assignment) throw new TypeError("stepMachine: an action that is not an assign")
      const params = isRecord(action) && !isFunction(action) && "params" in action ? action.params : undefined
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
      changed = true
    }
  }
  for (const s of sets.exit) {
    run(s.exit)
    for (const invoke of s.invoke) {
      sink.stopEffect(invoke.id)
      changed = true
    }
  }
  run(t.actions)
  let status: "active" | "done" = "active"
  let output: unknown
  for (const s of sets.enter) {
    run(s.entry)
    s.invoke.forEach((invoke, i) => {
      const start = effectOf(machine, s, i)
      if (!start) throw new TypeError(`stepMachine: "${invoke.src}" is not an effect`)
      const input = isFunction(invoke.input)
        ? invoke.input({ context, event, self, spawn: noSpawn, system: undefined }, undefined)
        : invoke.input
      sink.startEffect(invoke.id, start, input)
      changed = true
    })
    if (s.type === "final") {
      status = "done"
      const root = machine.root
      const doneEvent = { type: `xstate.done.state.${s.id}`, output: undefined }
      output = isFunction(root.output)
        ? root.output({ context, event: doneEvent, self, spawn: noSpawn, system: undefined }, undefined)
        : undefined
    }
  }
  if (status === "done") {
    for (const s of [sets.atomic, ...properAncestors(sets.atomic, undefined)]) run(s.exit)
    sink.stopEffects()
  }
  // as xstate: the same snapshot when no action ran and the states are the same
  if (!changed && sets.sameStates) return snapshot
  const base = template(c, machine, sets.atomic)
  return status === "done"
    ? { ...base, context, status, output, error: undefined }
    : { ...base, context, status, output: undefined, error: undefined }
}
