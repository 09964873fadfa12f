/**
 * Restoring and persisting a resting flow's snapshot for the direct runner, without xstate's general
 * walk, for the snapshots every resting flow has: no child actor, no history, the state named whole
 * down to an atomic or final state, no actor reference in the context. The results are what xstate's
 * `restoreSnapshot` and `getPersistedSnapshot` give for them (the snapshot template of the state with
 * the persisted fields; the persisted fields of the snapshot); any other snapshot is left to xstate
 * (undefined here).
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from "xstate"
import { type Compiled, isRecord, template } from "./machine-compile.js"

/** xstate's marker of an actor reference in a persisted context (`xstate$$type`). */
const ACTOR_MARKER = "xstate$$type"

/**
 * The own fields of an xstate machine snapshot: status, output, error, machine, context, _nodes, value,
 * tags, children, historyValue and the methods matches, hasTag, can, getMeta, toJSON.
 */
const SNAPSHOT_FIELDS = 15

/** `{}`, `undefined` or any object without an own enumerable key. */
function isEmpty(value: unknown): boolean {
  if (value === undefined) return true
  if (!isRecord(value)) return false
  for (const _ in value) return false
  return true
}

/** The atomic or final state `value` names whole (`"a"`, `{ a: "b" }`, one key a level); undefined otherwise. */
function stateAt(root: AnyStateNode, value: unknown): AnyStateNode | undefined {
  let node = root
  let rest = value
  for (;;) {
    let key: string
    if (typeof rest === "string") key = rest
    else if (isRecord(rest)) {
      const keys = Object.keys(rest)
      if (keys.length !== 1) return undefined
      key = keys[0] as string
    } else return undefined
    if (!Object.hasOwn(node.states, key)) return undefined
    node = node.states[key] as AnyStateNode
    if (typeof rest === "string") return node.type === "atomic" || node.type === "final" ? node : undefined
    rest = (rest as Record<string, unknown>)[key]
  }
}

/** Whether `value` holds, at any depth, what xstate reads as an actor: a marker (restore) or a live reference (persist). */
function holdsActor(value: unknown, depth = 0): boolean {
  if (depth > 64) return true // deeper than any flow context: xstate's own walk decides
  for (const key in value as Record<string, unknown>) {
    const part = (value as Record<string, unknown>)[key]
    if (!isRecord(part)) continue
    if (ACTOR_MARKER in part || ("sessionId" in part && "send" in part && "ref" in part)) return true
    if (holdsActor(part, depth + 1)) return true
  }
  return false
}

/**
 * The snapshot `machine.restoreSnapshot(persisted)` gives, made from the state's template, when the
 * persisted snapshot is of the simple kind (see the file's comment); undefined for xstate to restore.
 * @example const snapshot = restoredSnapshot(compiled, machine, persisted) ?? machine.restoreSnapshot(persisted, scope)
 */
export function restoredSnapshot(
  c: Compiled,
  machine: AnyStateMachine,
  persisted: Record<string, unknown>,
): AnyMachineSnapshot | undefined {
  if (!isRecord(persisted.children) || !isEmpty(persisted.children) || !isEmpty(persisted.historyValue)) return undefined
  const node = stateAt(machine.root, persisted.value)
  const { context } = persisted
  if (!node || (context !== undefined && !isRecord(context)) || holdsActor(context)) return undefined
  return {
    ...template(c, machine, node),
    status: persisted.status,
    output: persisted.output,
    error: persisted.error,
    context,
  } as AnyMachineSnapshot
}

/**
 * What `machine.getPersistedSnapshot(snapshot)` gives, for a snapshot without children or history and
 * without an actor in its context (its JSON is the same, key for key); undefined for xstate to persist.
 * @example const persisted = persistedSnapshot(snapshot) ?? machine.getPersistedSnapshot(snapshot)
 */
export function persistedSnapshot(snapshot: AnyMachineSnapshot): Record<string, unknown> | undefined {
  const { status, output, error, value, context, children, historyValue } = snapshot
  // xstate keeps every other own field: only a snapshot with exactly the fields it makes is persisted here
  if (Object.keys(snapshot).length !== SNAPSHOT_FIELDS) return undefined
  if (!isEmpty(children) || !isEmpty(historyValue) || holdsActor(context)) return undefined
  return { status, output, error, value, historyValue: {}, context, children: {} }
}
