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

/**
 * `{ ...base, ...extra }`, built so that results with the same keys share one hidden class. In V8 a spread
 * followed by more keys gives every result a hidden class of its own (made afresh each time, and a cache
 * miss at every later read of the object). An own `__proto__` key in `base` (JSON.parse makes those) keeps
 * the spread, which copies it as a plain key where `Object.assign` would set the prototype.
 * @example const claims = extended(token, { iat, exp }) // token's claims, then iat and exp
 */
export function extended<T extends object, U extends object>(base: T, extra: U): T & U {
  return Object.hasOwn(base, "__proto__") ? { ...base, ...extra } : Object.assign({}, base, extra)
}
