/**
 * Serialises work on one key within a process (per scope object), so two concurrent sign-ins of the same
 * account cannot both create the user. Across processes the adapter's own constraints decide; callers
 * re-read after a failed write.
 */
const scopes = new WeakMap<object, Map<string, Promise<void>>>()

export async function withKeyLock<T>(scope: object, key: string, run: () => Promise<T>): Promise<T> {
  let queue = scopes.get(scope)
  if (!queue) scopes.set(scope, (queue = new Map()))
  const previous = queue.get(key) ?? Promise.resolve()
  let release: () => void = () => {}
  const mine = previous.then(() => new Promise<void>((resolve) => (release = resolve)))
  queue.set(key, mine)
  await previous
  try {
    return await run()
  } finally {
    release()
    if (queue.get(key) === mine) queue.delete(key)
  }
}
