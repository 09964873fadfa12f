/**
 * The adapter as the runtime uses it: every call wrapped, so a throw becomes an `AdapterError` (its
 * cause kept) instead of a crash or a half-finished sign-in, and every call is debug-logged by name.
 * Also: which methods each enabled feature calls, for `MissingAdapterMethods` at start-up.
 */
import { AdapterError } from "../../errors.js"
import type { Adapter } from "../../adapters/types.js"
import type { LoggerInstance } from "../../types.js"
import type { RequestContext } from "../http/context.js"

import type { SafeAdapter } from "../../types/adapter.js"
export type { SafeAdapter }

const cache = new WeakMap<object, SafeAdapter>()

/** Wraps an adapter once (per adapter object). */
export function safeAdapter(adapter: Adapter, logger: LoggerInstance): SafeAdapter {
  const hit = cache.get(adapter)
  if (hit) return hit
  // one wrapper per method name, made on first use (not a closure per call)
  const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>()
  const wrapped = new Proxy({} as SafeAdapter, {
    get(_, name: string) {
      let call = methods.get(name)
      if (call) return call
      const line = `adapter_${String(name)}`
      call = async (...args: unknown[]) => {
        logger.debug(line, { args })
        const method = (adapter as Record<string, unknown>)[name]
        if (typeof method !== "function") throw new AdapterError(`The adapter has no method ${name}.`)
        try {
          return await (method as (...a: unknown[]) => unknown).apply(adapter, args)
        } catch (err) {
          throw new AdapterError(`The adapter's ${name} failed.`, { err, method: name })
        }
      }
      methods.set(name, call)
      return call
    },
  })
  cache.set(adapter, wrapped)
  return wrapped
}

/**
 * The adapter of a request's config, wrapped so a failing call is an `AdapterError`; undefined without one.
 * @example const user = await adapterOf(ctx)?.getUserByEmail("ada@example.com")
 */
export function adapterOf(ctx: Pick<RequestContext, "config">): SafeAdapter | undefined {
  const { adapter, logger } = ctx.config
  return adapter ? safeAdapter(adapter, logger) : undefined
}

/** Methods the database session strategy calls. */
export const DATABASE_SESSION_METHODS = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "updateUser",
  "linkAccount",
  "createSession",
  "getSessionAndUser",
  "updateSession",
  "deleteSession",
] as const

/** The names in `required` that `adapter` lacks. */
export function missingMethods(adapter: Adapter, required: Iterable<string>): string[] {
  const missing = new Set<string>()
  for (const name of required) {
    if (typeof (adapter as Record<string, unknown>)[name] !== "function") missing.add(name)
  }
  return [...missing]
}
