/**
 * How effects reach the request they run for. Machines are provided with their effects once per flow
 * (not per request: `provide()` rebuilds the machine); each run binds its request context to the actor
 * system it creates, and the effect looks it up from the `system` xstate hands its promise actor.
 */
import { type ActorSystem, fromPromise, type PromiseActorLogic } from "xstate"
import type { EffectContext } from "../define-flow.js"

// biome-ignore lint/suspicious/noExplicitAny: an actor system of any machine (its type parameter is invariant)
type AnySystem = ActorSystem<any>

const scopes = new WeakMap<AnySystem, EffectContext>()

/** Binds a request's context to the actor system of the flow run that serves it. */
export function bindEffectContext(system: AnySystem, ctx: EffectContext): void {
  scopes.set(system, ctx)
}

/** The request context of the flow run an effect belongs to. */
export function effectContext(system: AnySystem): EffectContext {
  const ctx = scopes.get(system)
  if (!ctx) throw new Error("effect run outside a flow run (no request context bound)")
  return ctx
}

/**
 * An effect: a function of the request context and the machine's input answering its output, as xstate
 * promise logic (`fromPromise`); a throw or a rejection is the effect's error.
 * @example const lookup = effect(async (ctx, input: { id: string }) => ctx.config.adapter …)
 */
export function effect<Output, Input>(
  run: (ctx: EffectContext, input: Input) => Output | Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async ({ input, system }) => run(effectContext(system), input))
}
