/**
 * Serialises work on one key within a process (per scope object), so two concurrent sign-ins of the same
 * account cannot both create the user. Across processes the adapter's own constraints decide; callers
 * re-read after a failed write.
 */

/** Per scope: each held key and the wake-ups of those waiting for it, first come first served. */
const scopes = new WeakMap<object, Map<string, (() => void)[]>>()

export async function withKeyLock<T>(scope: object, key: string, run: () => Promise<T>): Promise<T> {
  let held = scopes.get(scope)
  if (!held) scopes.set(scope, (held = new Map()))
  const waiting = held.get(key)
  // a free key is taken at once, with no promise; a held one is waited for in turn
  if (waiting === undefined) held.set(key, [])
  else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await run()
  } finally {
    // hand the key to the next in line, or free it
    const next = (held.get(key) as (() => void)[]).shift()
    if (next) next()
    else held.delete(key)
  }
}
