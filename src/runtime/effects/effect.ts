/**
 * How effects reach the request they run for. Machines are provided with their effects once per flow
 * (not per request: `provide()` rebuilds the machine); each run binds its request context to the actor
 * system it creates, and an effect looks it up from the `system` xstate hands it.
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

const RESOLVE = "xstate.promise.resolve"
const REJECT = "xstate.promise.reject"
const STOP = "xstate.stop"

type EffectSnapshot<Output, Input> = ReturnType<PromiseActorLogic<Output, Input>["getInitialSnapshot"]>

/**
 * An effect: an async function of the request context and the machine's input, as xstate promise logic.
 * It behaves as `fromPromise` does (the same snapshots, done and error events, and nothing after a
 * stop) without the `AbortController` that `fromPromise` makes for every run: an effect gets no abort
 * signal, it is bounded by its own timeouts and the flow's.
 * @example const lookup = effect(async (ctx, input: { id: string }) => ctx.config.adapter …)
 */
export function effect<Output, Input>(run: (ctx: EffectContext, input: Input) => Promise<Output>): PromiseActorLogic<Output, Input> {
  const logic = fromPromise<Output, Input>(({ input, system }) => run(effectContext(system), input))
  return {
    ...logic,
    transition: (snapshot, event) => {
      if (snapshot.status !== "active") return snapshot
      const { type, data } = event as { type: string; data?: unknown }
      if (type === RESOLVE) return { ...snapshot, status: "done", output: data as Output, input: undefined }
      if (type === REJECT) return { ...snapshot, status: "error", error: data, input: undefined } as EffectSnapshot<Output, Input>
      if (type === STOP) return { ...snapshot, status: "stopped", input: undefined } as EffectSnapshot<Output, Input>
      return snapshot
    },
    start: (snapshot, { self, system }) => {
      if (snapshot.status !== "active") return
      let running: Promise<Output>
      try {
        running = Promise.resolve(run(effectContext(system), snapshot.input as Input))
      } catch (err) {
        running = Promise.reject(err)
      }
      running.then(
        (data) => self.getSnapshot().status === "active" && self.send({ type: RESOLVE, data }),
        (data: unknown) => self.getSnapshot().status === "active" && self.send({ type: REJECT, data }),
      )
    },
  }
}
