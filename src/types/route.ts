/**
 * The routing table's rows: the shape of `config.routes` entries, and the table one config builds.
 * Types only.
 */
import type { Handled, RequestContext } from "./request.js"

/**
 * A row of the routing table, and the shape of `config.routes` entries: one endpoint
 * `<method> <basePath>/<action>[/<provider>]`.
 *
 * @example
 * ```ts
 * const row: Route = { method: "GET", action: "inspect", provider: false, handle: async (ctx) => ({ response: { body: "…" } }) }
 * ```
 */
export interface Route {
  readonly method: "GET" | "POST"
  readonly action: string
  /** Whether the path carries a provider id (any id: the handler reads `ctx.provider`). */
  readonly provider: boolean
  /** Double-submit CSRF check before the handler runs. */
  readonly csrf?: boolean
  readonly handle: (ctx: RequestContext) => Promise<Handled>
}

/** What serves a request: a row, or nothing (`UnknownAction`). */
export type Match = { readonly csrf?: boolean; readonly handle: (ctx: RequestContext) => Promise<Handled> } | undefined

/** The routing table of one config. */
export interface RouteTable {
  /** Every action served besides Auth.js' nine (runtime, `config.routes` and flow rows). */
  readonly extraActions: ReadonlySet<string>
  /** Actions whose path may carry a provider id. */
  readonly providerActions: ReadonlySet<string>
  /** The row for a request, or undefined. */
  find(ctx: RequestContext): Match
}
