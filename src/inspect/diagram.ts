/**
 * Mermaid `stateDiagram-v2` text from a machine definition, by walking `machine.root`'s state nodes
 * (its `definition` leaves out `always`). States, initial states, event transitions, `always` and
 * `after` transitions, invoke completions (`done: <effect>` / `error: <effect>`), final states, and the
 * states tagged `awaiting-input` (class `awaitingInput`). The output depends only on the definition, so
 * it can be committed and checked for staleness.
 */
import type { AnyStateMachine, AnyStateNode } from "xstate"
import type { FlowDefinition } from "../runtime/engine/define-flow.js"
import { eventLabel } from "../runtime/engine/inspection.js"

const AWAITING_INPUT = "awaiting-input"

/** Words Mermaid's state grammar reads as keywords: such keys get an `s_` id and a label. */
const RESERVED: ReadonlySet<string> = new Set([
  "as",
  "class",
  "classdef",
  "click",
  "default",
  "direction",
  "end",
  "left",
  "note",
  "of",
  "right",
  "state",
  "style",
])

interface Transition {
  readonly eventType: string
  readonly target?: readonly AnyStateNode[] | undefined
  readonly guard?: unknown
}

/** A diagram and, for each state path (`a.b`, as the inspection stream names states), its Mermaid id. */
export interface MachineDiagram {
  readonly mermaid: string
  readonly ids: Readonly<Record<string, string>>
}

function plainId(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, "_")
}

/** Keeps a label to what Mermaid reads literally on an edge or a state. */
function label(text: string): string {
  return text.replace(/[^A-Za-z0-9_ .:,()[\]/*+=>-]/g, "_")
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined
  if (typeof guard === "string") return guard
  if (typeof guard === "object" && guard !== null && typeof (guard as { type?: unknown }).type === "string") {
    return (guard as { type: string }).type
  }
  const name = typeof guard === "function" ? guard.name : ""
  return name && name !== "guard" ? name : "guard"
}

/**
 * Assigns every state node a Mermaid id: its path joined with `_`; keywords and collisions get a prefix
 * or a suffix. Document order, so ids are stable.
 */
function assignIds(root: AnyStateNode): Map<AnyStateNode, string> {
  const ids = new Map<AnyStateNode, string>()
  const used = new Set<string>()
  const visit = (node: AnyStateNode): void => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      let id = plainId(child.path.join("_"))
      if (RESERVED.has(id.toLowerCase()) || /^[0-9]/.test(id)) id = `s_${id}`
      let unique = id
      for (let n = 2; used.has(unique); n++) unique = `${id}_${n}`
      used.add(unique)
      ids.set(child, unique)
      visit(child)
    }
  }
  visit(root)
  return ids
}

function effectLabels(node: AnyStateNode): Map<string, string> {
  const labels = new Map<string, string>()
  for (const invoke of node.invoke) labels.set(invoke.id, typeof invoke.src === "string" ? invoke.src : invoke.id)
  return labels
}

/** Strict ancestors of a node, nearest first (the root last). */
function ancestors(node: AnyStateNode): AnyStateNode[] {
  const out: AnyStateNode[] = []
  for (let parent = node.parent; parent; parent = parent.parent) out.push(parent)
  return out
}

/**
 * The block an edge is written in: the deepest compound state holding both ends. Mermaid places a state
 * in the block where it is first named, so an edge leaving a block written inside it would pull its
 * target in. A parallel state's block is split into regions, so an edge between regions goes above it.
 */
function edgeScope(from: AnyStateNode, to: AnyStateNode): AnyStateNode {
  const around = new Set(ancestors(to))
  for (const scope of ancestors(from)) if (around.has(scope) && scope.type !== "parallel") return scope
  return ancestors(from).at(-1) as AnyStateNode
}

/** Every edge of the machine keyed by the block it belongs in, each block's edges in document order. */
function edgesByScope(root: AnyStateNode, ids: Map<AnyStateNode, string>): Map<AnyStateNode, string[]> {
  const scopes = new Map<AnyStateNode, string[]>()
  const put = (scope: AnyStateNode, line: string) => {
    const lines = scopes.get(scope) ?? []
    lines.push(line)
    scopes.set(scope, lines)
  }
  const visit = (node: AnyStateNode): void => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      for (const edge of nodeEdges(child, ids)) put(edge.to ? edgeScope(child, edge.to) : node, edge.line)
      visit(child)
    }
  }
  visit(root)
  return scopes
}

/** A node's outgoing edges (and `--> [*]` for a final state), with their targets. */
function nodeEdges(node: AnyStateNode, ids: Map<AnyStateNode, string>): { line: string; to?: AnyStateNode }[] {
  const from = ids.get(node) as string
  const effects = effectLabels(node)
  const groups: Array<[string, readonly Transition[]]> = [...(node.transitions as Map<string, readonly Transition[]>)]
  if (node.always && node.always.length > 0) groups.push(["", node.always as readonly Transition[]])
  const edges: { line: string; to?: AnyStateNode }[] = []
  for (const [eventType, transitions] of groups) {
    const base = eventType === "" ? "always" : eventLabel(eventType, (id) => effects.get(id) ?? id)
    let guardedBefore = false
    for (const transition of transitions) {
      const guard = guardName(transition.guard) ?? (guardedBefore ? "else" : undefined)
      guardedBefore ||= transition.guard !== undefined
      const text = label(guard ? `${base} [${guard}]` : base)
      for (const target of transition.target ?? []) {
        const to = ids.get(target)
        if (to) edges.push({ line: `${from} --> ${to}: ${text}`, to: target })
      }
    }
  }
  if (node.type === "final") edges.push({ line: `${from} --> [*]` })
  return edges
}

type Layout = { readonly ids: Map<AnyStateNode, string>; readonly edges: Map<AnyStateNode, string[]> }

/** A state's own lines: its label when the id differs from its key, and its block if it has children. */
function declarationLines(node: AnyStateNode, layout: Layout, depth: number): string[] {
  const indent = "  ".repeat(depth)
  const id = layout.ids.get(node) as string
  const name = node.type === "history" ? `${node.key} (history)` : node.key
  const lines = id === name ? [] : [`${indent}state "${label(name)}" as ${id}`]
  if (node.type === "compound" || node.type === "parallel") {
    lines.push(`${indent}state ${id} {`, ...bodyLines(node, layout, depth + 1), `${indent}}`)
  }
  return lines
}

/**
 * The lines inside a block: the initial arrow, the children's declarations, then the edges that belong
 * here (regions of a parallel state are separated by `--`).
 */
function bodyLines(node: AnyStateNode, layout: Layout, depth: number): string[] {
  const indent = "  ".repeat(depth)
  const children = Object.values(node.states) as AnyStateNode[]
  if (node.type === "parallel") {
    return children.flatMap((region, i) => [...(i > 0 ? [`${indent}--`] : []), ...declarationLines(region, layout, depth)])
  }
  const lines: string[] = []
  for (const target of node.initial?.target ?? []) {
    const id = layout.ids.get(target)
    if (id) lines.push(`${indent}[*] --> ${id}`)
  }
  for (const child of children) lines.push(...declarationLines(child, layout, depth))
  for (const edge of layout.edges.get(node) ?? []) lines.push(`${indent}${edge}`)
  return lines
}

/**
 * The diagram of a machine with the Mermaid id of every state path, for tools that highlight states
 * named by the inspection stream.
 */
export function machineDiagram(machine: AnyStateMachine): MachineDiagram {
  const root = machine.root as AnyStateNode
  const ids = assignIds(root)
  const layout = { ids, edges: edgesByScope(root, ids) }
  const awaiting = [...ids].filter(([node]) => node.tags.includes(AWAITING_INPUT)).map(([, id]) => id)
  const lines = [
    "stateDiagram-v2",
    `  %% ${label(machine.id)}: generated from the machine definition by authchart; do not edit`,
    ...bodyLines(root, layout, 1),
    "  classDef awaitingInput fill:#fff4d6,stroke:#b7791f,stroke-width:2px",
    ...awaiting.map((id) => `  class ${id} awaitingInput`),
  ]
  const byPath: Record<string, string> = {}
  for (const [node, id] of ids) byPath[node.path.join(".")] = id
  return { mermaid: `${lines.join("\n")}\n`, ids: byPath }
}

/**
 * A machine as Mermaid `stateDiagram-v2` text. States tagged `awaiting-input` (resting until the next
 * request) carry the class `awaitingInput`.
 *
 * @example
 * ```ts
 * import { toMermaid } from "authchart/inspect"
 * writeFileSync("signup.mmd", toMermaid(signupFlow.machine))
 * ```
 */
export function toMermaid(machine: AnyStateMachine): string {
  return machineDiagram(machine).mermaid
}

/** The diagram of every flow, in the given order. */
export function flowDiagrams(flows: Iterable<Pick<FlowDefinition, "id" | "machine">>): { id: string; mermaid: string }[] {
  return [...flows].map((flow) => ({ id: flow.id, mermaid: toMermaid(flow.machine) }))
}
