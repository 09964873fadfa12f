/** Plain-object test shared by the option mergers and validators. */

/**
 * Whether `value` is a plain object (an object literal or `Object.create(null)`), typed as a record of
 * its fields. Arrays, class instances, `null` and primitives are not.
 * @example isPlainObject({ a: 1 }) // true; isPlainObject(new URL("https://a.example")) // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
