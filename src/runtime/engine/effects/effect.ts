/**
 * How effects reach the request they run for. Machines are provided with their effects once per flow
 * (not per request: `provide()` rebuilds the machine); each run binds its request context to the actor
 * system it creates, and the effect looks it up from the `system` xstate hands its promise actor. A
 * flow's effects (`effect`) see the request's services; the runtime's own (the tail, steps) its context.
 */
import { type ActorSystem, fromPromise, type PromiseActorLogic } from "xstate"
import type { FlowServices } from "../../../types/flow.js"
import type { EffectContext } from "../define-flow.js"
import { flowServices } from "./services.js"

// biome-ignore lint/suspicious/noExplicitAny: an actor system of any machine (its type parameter is invariant)
type AnySystem = ActorSystem<any>

interface Scope {
  readonly ctx: EffectContext
  services?: FlowServices
}

const scopes = new WeakMap<AnySystem, Scope>()

/** Binds a request's context to the actor system of the flow run that serves it. */
export function bindEffectContext(system: AnySystem, ctx: EffectContext): void {
  scopes.set(system, { ctx })
}

function scopeOf(system: AnySystem): Scope {
  const scope = scopes.get(system)
  if (!scope) throw new Error("effect run outside a flow run (no request context bound)")
  return scope
}

/** The request context of the flow run an effect belongs to. */
export function effectContext(system: AnySystem): EffectContext {
  return scopeOf(system).ctx
}

/** The services of the flow run an effect belongs to, made once per run. */
function servicesOf(system: AnySystem): FlowServices {
  const scope = scopeOf(system)
  scope.services ??= flowServices(scope.ctx, scope.ctx.callbackUrl)
  return scope.services
}

/**
 * An effect: a function of the request's services and the machine's input answering its output, as
 * xstate promise logic (`fromPromise`); a throw or a rejection is the effect's error. Provide it in
 * `defineFlow({ actors })` under the name the machine declared with `declareEffect`.
 *
 * @example
 * ```ts
 * import { effect } from "authchart/flow"
 * const sendCode = effect(async (services, input: { email: string }) => {
 *   const { count } = await services.serverState.count(`sent:{${input.email}}`, 15 * 60_000)
 *   return { sent: count <= 3, at: services.now }
 * })
 * ```
 */
export function effect<Output, Input>(
  run: (services: FlowServices, input: Input) => Output | Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async ({ input, system }) => run(servicesOf(system), input))
}

/** The runtime's own effects (the sign-in tail, steps): a function of the whole request context. */
export function contextEffect<Output, Input>(
  run: (ctx: EffectContext, input: Input) => Output | Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async ({ input, system }) => run(effectContext(system), input))
}
