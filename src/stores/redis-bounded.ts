/**
 * Bounds one Redis command in time: node-redis does not bound the wait for a reply on its own, so a
 * stalled server would hang the request. A late or failed command is `FlowStoreUnavailable`
 * (`error=Configuration`), the cause kept as private evidence.
 */
import { FlowStoreUnavailable } from "../errors.js"

/** `work`, or a rejection when it takes longer than `ms` (the command is not cancelled, only no longer awaited). */
export async function deadline<T>(work: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis ${what} took longer than ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** `work`, or `FlowStoreUnavailable(message)` when it fails or takes longer than `ms`. */
export async function bounded<T>(work: Promise<T>, ms: number, what: string, message: string): Promise<T> {
  try {
    return await deadline(work, ms, what)
  } catch (err) {
    throw new FlowStoreUnavailable(message, { err, command: what })
  }
}
