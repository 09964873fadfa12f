/**
 * Answers that may come at once or later (an app's callbacks may be sync or async): waiting only for a
 * promise or another thenable keeps the common synchronous answer off the microtask queue.
 */

/**
 * Whether `value` is a promise or any other thenable (what `await` would wait for).
 * @example const answer = callbacks.signIn(params); const verdict = isPromiseLike(answer) ? await answer : answer
 */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (typeof value === "object" || typeof value === "function") && value !== null && "then" in value && typeof value.then === "function"
}
