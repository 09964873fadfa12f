/**
 * A provider's flow declarations (`FlowDeclarations`): the flow's own, else those of the flow that serves
 * the provider's `type` (the built-in one, or the config's flow of that type), so a flow of an app's own
 * bound to a `credentials` provider keeps the credentials form, limits and linking until it declares its own.
 */
import type { DeclaredProvider, FlowDeclarations } from "../../types/flow-declarations.js"
import type { FlowDefinition, FlowRoute } from "../../types/flow.js"
import type { ResolvedProvider } from "../../types/resolved.js"

type Flows = ReadonlyMap<string, FlowDefinition>

/** The flow a provider uses: the one it names (`flow`), else the one that serves its `type`. */
export function flowOf(provider: ResolvedProvider, flows: Flows): FlowDefinition | undefined {
  const named = provider.config.flow
  if (typeof named === "string") return flows.get(named)
  if (named) return flows.get(named.id) ?? named
  return flowOfType(provider.type, flows)
}

/** The flow that serves providers of `type` that name none: the last one of `flows` that lists it. */
function flowOfType(type: string, flows: Flows): FlowDefinition | undefined {
  return [...flows.values()].reverse().find((flow) => flow.providerTypes?.includes(type))
}

/** The flows a provider's declarations come from: its own, and the one of its `type`. */
interface Sources {
  readonly own: FlowDefinition | undefined
  readonly byType: FlowDefinition | undefined
}

const sources = new WeakMap<ResolvedProvider, Sources>()

function sourcesOf(provider: ResolvedProvider, flows: Flows): Sources {
  let found = sources.get(provider)
  if (!found) {
    found = { own: flowOf(provider, flows), byType: flowOfType(provider.type, flows) }
    sources.set(provider, found)
  }
  return found
}

/** The declaration `key` of the provider's flow, else of the flow of its type; undefined when neither declares it. */
export function declarationOf<K extends keyof FlowDeclarations>(
  config: { readonly flows: Flows },
  provider: ResolvedProvider,
  key: K,
): FlowDeclarations[K] {
  const { own, byType } = sourcesOf(provider, config.flows)
  return own?.[key] ?? byType?.[key]
}

const sameRow = (a: FlowRoute, method: string, action: string, step: string | undefined) =>
  a.method === method && a.action === action && a.step === step

/**
 * The limit on a provider's request: the matching row's own, else, when the provider's flow declares no
 * limit on any row, the limit on the same row (method, action, step) of the flow of its `type`.
 */
export function routeLimitOf(
  config: { readonly flows: Flows },
  provider: ResolvedProvider,
  method: string,
  action: string,
  step: string | undefined,
): FlowRoute["limit"] {
  const { own, byType } = sourcesOf(provider, config.flows)
  const row = own?.routes.find((r) => sameRow(r, method, action, step))
  if (row?.limit) return row.limit
  if (own?.routes.some((r) => r.limit)) return undefined
  return byType?.routes.find((r) => sameRow(r, method, action, step))?.limit
}

type FormTargets = NonNullable<FlowDeclarations["formTargets"]>
const targetsByConfig = new WeakMap<object, ReadonlyMap<FormTargets, readonly DeclaredProvider[]>>()

/**
 * Each flow's `formTargets` with the providers it serves (its own, or by their `type`): every flow that
 * declares them, in the order of `flows`, even one that serves no provider now. Worked out once per config.
 */
export function formTargetsOf(config: {
  readonly flows: Flows
  readonly providers: ReadonlyMap<string, ResolvedProvider>
}): ReadonlyMap<FormTargets, readonly DeclaredProvider[]> {
  let made = targetsByConfig.get(config)
  if (made) return made
  const byTargets = new Map<FormTargets, DeclaredProvider[]>()
  for (const flow of config.flows.values()) if (flow.formTargets && !byTargets.has(flow.formTargets)) byTargets.set(flow.formTargets, [])
  for (const provider of config.providers.values()) {
    const targets = declarationOf(config, provider, "formTargets")
    if (!targets) continue
    const served = byTargets.get(targets)
    if (served) served.push(provider)
    else byTargets.set(targets, [provider])
  }
  made = byTargets
  targetsByConfig.set(config, made)
  return made
}
