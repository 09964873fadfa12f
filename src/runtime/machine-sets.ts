/**
 * The states a transition of a flow machine leaves and enters from one configuration, computed as
 * xstate's `microstep` computes them for the machines machine-step.ts takes (one target, no history or
 * parallel states), and kept per (transition, atomic state): the same transition from the same state
 * always leaves and enters the same states.
 */
import type { AnyStateMachine, AnyStateNode } from "xstate"

/** A transition's exit and entry sets from one configuration (its atomic state), computed once. */
export interface Sets {
  /** Innermost first. */
  readonly exit: readonly AnyStateNode[]
  /** Outermost first. */
  readonly enter: readonly AnyStateNode[]
  /** The atomic (or final) state the configuration ends in. */
  readonly atomic: AnyStateNode
  /** The transition leaves the same states it enters (or none). */
  readonly sameStates: boolean
}

/** A transition of a flow machine, as xstate's `getTransitionData` gives it. */
export type Transition = ReturnType<AnyStateMachine["getTransitionData"]>[number]

/** Per machine: the sets by transition, then by the atomic state it is taken from. */
export type SetsCache = WeakMap<Transition, Map<AnyStateNode, Sets>>

/** xstate's `isDescendant`: `child` is a proper descendant of `parent` (any state when `parent` is undefined). */
function isDescendant(child: AnyStateNode, parent: AnyStateNode | undefined): boolean {
  let marker = child
  while (marker.parent && marker.parent !== parent) marker = marker.parent
  return marker.parent === parent
}

/** The ancestors of `node` up to (not including) `upTo`, innermost first. */
export function properAncestors(node: AnyStateNode, upTo: AnyStateNode | undefined): AnyStateNode[] {
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

/** The sets of `t` from the configuration `nodes`, computed once per (transition, atomic state) in `cache`. */
export function setsOf(cache: SetsCache, t: Transition, nodes: readonly AnyStateNode[]): Sets {
  const current = atomicOf(nodes)
  let byAtomic = cache.get(t)
  if (!byAtomic) {
    byAtomic = new Map()
    cache.set(t, byAtomic)
  }
  let sets = byAtomic.get(current)
  if (!sets) {
    sets = computeSets(t, nodes, current)
    byAtomic.set(current, sets)
  }
  return sets
}

/** The deepest state of a configuration. */
export function atomicOf(nodes: readonly AnyStateNode[]): AnyStateNode {
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
