/**
 * The routing table, built once per config: one row per (method, action, provider?) with its CSRF
 * rule and what answers it. The runtime's own rows (`routes.ts`), `config.routes`, and every flow's rows
 * bound to each provider the flow serves; nothing here knows a flow or a provider type by name.
 */
import { InvalidProvider } from "../../errors.js"
import type { ResolvedProvider } from "./resolve.js"
import { type Handled, type RequestContext, param } from "../http/context.js"
import { runFlow } from "../engine/engine.js"
import { isAuthAction } from "../config/env.js"
import type { FlowDefinition } from "../engine/define-flow.js"
import type { Route, Match, RouteTable } from "../../types/route.js"
import { flowOf } from "../config/declarations.js"
export type { Route, Match, RouteTable }

/** A flow's row bound to one provider: matched on the request's `step` too. */
interface ProviderRow {
  readonly csrf?: boolean
  readonly step?: string
  readonly handle: (ctx: RequestContext) => Promise<Handled>
}

const key = (method: string, action: string, provider?: string) => `${method} ${action}${provider === undefined ? "" : ` ${provider}`}`

/** A provider-scoped request nothing serves: an unknown provider, or one whose flow has no such row. */
export async function notServed(ctx: RequestContext): Promise<Handled> {
  const provider = ctx.provider
  if (!provider) throw unknownProvider(ctx)
  throw new InvalidProvider(`Provider "${provider.id}" (${provider.type}) does not handle ${ctx.req.method} ${ctx.action}.`)
}

/**
 * A request naming a provider id no provider has (a typo in a link or in `signIn("…")`): the log names
 * the id, the request and the configured ids; the user gets the `Configuration` error page.
 */
export function unknownProvider(ctx: RequestContext): InvalidProvider {
  const known = [...ctx.config.providers.keys()].map((id) => `"${id}"`).join(", ")
  return new InvalidProvider(
    `Unknown provider "${ctx.providerId}" in ${ctx.req.method} /${ctx.action}; the configured providers are ${known || "none"}.`,
  )
}

/** The rows a flow contributes for one provider. */
function flowRows(flow: FlowDefinition): Array<{ method: string; action: string; row: ProviderRow }> {
  const driving = flow.routes.map((route) => ({
    method: route.method,
    action: route.action,
    row: { csrf: route.csrf, step: route.step, handle: (ctx: RequestContext) => runFlow(ctx, flow, route) },
  }))
  const answers = (flow.answers ?? []).map((a) => ({ method: a.method, action: a.action, row: { csrf: a.csrf, handle: a.answer } }))
  return [...driving, ...answers]
}

/**
 * Builds the table: `runtime` rows first, then `extra` (`config.routes`), then each provider's flow rows.
 * A provider-scoped action with no row for the provider is `InvalidProvider`.
 */
export function buildRouteTable(
  runtime: readonly Route[],
  extra: readonly Route[],
  providers: Iterable<ResolvedProvider>,
  flows: ReadonlyMap<string, FlowDefinition>,
): RouteTable {
  const global = new Map<string, Route>()
  for (const row of [...runtime, ...extra]) {
    const k = key(row.method, row.action, row.provider ? "*" : undefined)
    if (!global.has(k)) global.set(k, row)
  }
  const scoped = new Map<string, ProviderRow[]>()
  for (const provider of providers) {
    const flow = flowOf(provider, flows)
    for (const { method, action, row } of flow ? flowRows(flow) : []) {
      const k = key(method, action, provider.id)
      scoped.set(k, [...(scoped.get(k) ?? []), row])
    }
  }
  const flowRowsAll = [...flows.values()].flatMap((flow) => [...flow.routes, ...(flow.answers ?? [])])
  const scopedRows = [...runtime, ...extra]
    .filter((r) => r.provider)
    .concat(flowRowsAll.map((r) => ({ ...r, provider: true, handle: notServed })))
  // (method, action) pairs that take a provider: with an unknown provider or one that has no such row, InvalidProvider
  const scopedPairs = new Set(scopedRows.map((r) => key(r.method, r.action)))
  const providerActions = new Set(scopedRows.map((r) => r.action))
  const all = [...runtime, ...extra, ...flowRowsAll].map((r) => r.action)
  return {
    extraActions: new Set(all.filter((action) => !isAuthAction(action))),
    providerActions,
    find(ctx) {
      const method = ctx.req.method
      if (ctx.providerId === undefined) return global.get(key(method, ctx.action))
      const step = param(ctx.req, "step")
      const own = scoped.get(key(method, ctx.action, ctx.providerId))?.find((row) => row.step === step)
      if (own) return own
      return global.get(key(method, ctx.action, "*")) ?? (scopedPairs.has(key(method, ctx.action)) ? { handle: notServed } : undefined)
    },
  }
}
