/**
 * How effects reach the request they run for. Machines are provided with their effects once per flow
 * (not per request: `provide()` rebuilds the machine). The engine's direct runner (machine-run.ts) calls
 * an effect itself with the request context ({@link effectStarter}); on a full xstate actor (a run an
 * inspector watches) each run binds its request context to the actor system it creates, and the effect
 * looks it up from the `system` xstate hands it.
 */
import { type ActorSystem, fromPromise, type PromiseActorLogic } from "xstate"
import type { EffectContext } from "../flow.js"

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
 * Runs an effect for the direct runner: the request context, and the input the machine's invoke resolved
 * (typed by the machine's declaration of the effect, not here: the runner passes it through). Its answer
 * is the output at once, or a promise of it; a throw is the effect's error at once.
 */
// biome-ignore lint/suspicious/noExplicitAny: the input is typed where the machine declares the effect
export type EffectStarter = (ctx: EffectContext, input: any) => unknown

const starters = new WeakMap<object, EffectStarter>()

/**
 * How the direct runner runs `logic`: set for every `effect()`, undefined for other actor logic.
 * @example const start = effectStarter(logic); if (start) await start(ctx, ref)
 */
export function effectStarter(logic: object): EffectStarter | undefined {
  return starters.get(logic)
}

/**
 * An effect: a function of the request context and the machine's input answering its output (usually an
 * async function; one that can answer at once may return the output itself, and the engine's direct
 * runner then goes on without a promise), as xstate promise logic (`fromPromise`), which the direct
 * runner also calls without an actor.
 * @example const lookup = effect(async (ctx, input: { id: string }) => ctx.config.adapter …)
 */
export function effect<Output, Input>(
  run: (ctx: EffectContext, input: Input) => Output | Promise<Output>,
): PromiseActorLogic<Output, Input> {
  const logic = fromPromise<Output, Input>(({ input, system }) => later(run, effectContext(system), input))
  starters.set(logic, run)
  return logic
}

/** `run`'s answer as a promise, a throw included (what an async function's call gives). */
async function later<Output, Input>(run: (ctx: EffectContext, input: Input) => Output | Promise<Output>, ctx: EffectContext, input: Input) {
  return run(ctx, input)
}
