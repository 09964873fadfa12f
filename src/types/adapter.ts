/**
 * The adapter as the runtime calls it. Types only; `safeAdapter` (the runtime) wraps an `Adapter` into it.
 */
import type { Adapter, VerificationToken } from "../adapters/types.js"

type Wrapped = {
  [K in keyof Adapter]-?: (...args: Parameters<NonNullable<Adapter[K]>>) => Promise<Awaited<ReturnType<NonNullable<Adapter[K]>>>>
}

/**
 * The adapter with every method guaranteed present (a missing one rejects with AdapterError).
 * `useVerificationToken` is called as Auth.js calls it: a magic link mailed without its `email` param
 * looks its token up with no `identifier` (`undefined`), and the adapter decides; the `Adapter` type
 * adapters implement still declares a string, as Auth.js' does.
 * @example const user = await services.adapter?.getUserByEmail("ada@example.com")
 */
export type SafeAdapter = Omit<Wrapped, "useVerificationToken"> & {
  useVerificationToken(params: { identifier: string | undefined; token: string }): Promise<VerificationToken | null>
}
