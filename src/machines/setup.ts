/**
 * The machine half of the flow kit (re-exported by `authchart/flow`): the context, events and types
 * every flow machine shares, the sign-in tail's effects, guard and action declared by name, and the
 * tail's states. A flow's machine is an ordinary xstate `setup()` that spreads these in; the runtime
 * supplies the effects with `machine.provide({ actors })`, so machines stay pure and testable without I/O.
 */
import { assign, fromPromise, type PromiseActorLogic } from "xstate"
import { setup } from "xstate"
import type { AWAITING_INPUT, FlowInput, FlowOutput, GateResult, Identity, Issued, Reply } from "./types.js"

/**
 * What a flow keeps between its requests. Everything here is persisted in the sealed snapshot: never a
 * secret the user typed. `pending` is the flow's own typed data between two requests (OAuth's checks,
 * WebAuthn's issued options, an email code's address).
 *
 * @example
 * ```ts
 * import type { FlowContext } from "authchart/flow"
 * type CodeContext = FlowContext<{ email: string }> // context.pending?.email
 * ```
 */
export interface FlowContext<TPending = unknown> {
  provider: string
  startedAt: number
  identity: Identity | null
  reply: Reply | null
  output: FlowOutput | null
  /** The flow's own data between two requests, typed per flow; null until it has some. */
  pending: TPending | null
  /** Extra steps (`extendFlow`): attempts and whatever each step keeps, by step id. */
  steps: Record<string, StepState>
}

/**
 * What one extra step keeps between its requests.
 * @example const attempts = context.steps.totp?.attempts ?? 0
 */
export interface StepState {
  attempts: number
  data?: Record<string, unknown>
}

/**
 * An HTTP request as the one event the runtime sends per request: the route row's `event` as `type`,
 * the fields the row declares as `params`, and the request's clock.
 *
 * @example
 * ```ts
 * import type { FlowEvent } from "authchart/flow"
 * const codeTyped = ({ event }: { event: FlowEvent }) => typeof event.params.code === "string"
 * ```
 */
export interface FlowEvent {
  type: string
  params: Record<string, unknown>
  /** Milliseconds since the epoch, read once per request. */
  now: number
}

function notProvided(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`effect "${name}" was not provided by the runtime`))
}

/**
 * Declares an effect a machine invokes by name, with its input and output types; the runtime provides
 * the implementation (`defineFlow({ actors })`, written with `effect()`).
 *
 * @example
 * ```ts
 * import { setup } from "xstate"
 * import { declareEffect, flowTypes, tailActors } from "authchart/flow"
 * setup({ types: flowTypes(), actors: { ...tailActors, sendCode: declareEffect<{ sent: true }, { email: string }>("sendCode") } })
 * ```
 */
export function declareEffect<Output, Input>(name: string): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(notProvided(name))
}

/**
 * The sign-in tail's effects, declared by name: spread them into your `setup({ actors })`. The runtime
 * always provides them.
 *
 * @example
 * ```ts
 * setup({ types: flowTypes(), actors: { ...tailActors, authorize }, guards: tailGuards, actions: tailActions })
 * ```
 */
export const tailActors = {
  /** The `signIn` callback: allow, deny (throws AccessDenied), or redirect elsewhere. */
  signInGate: declareEffect<GateResult, Identity>("signInGate"),
  /** With an adapter: find, link or create the user and account (the identity may change). */
  linkIdentity: declareEffect<Identity, Identity>("linkIdentity"),
  /** Create the session (cookie or database), fire events, resolve the redirect. */
  issueSession: declareEffect<Issued, Identity>("issueSession"),
}

/**
 * The sign-in tail's named guards: spread them into your `setup({ guards })`.
 *
 * @example
 * ```ts
 * setup({ types: flowTypes(), actors: tailActors, guards: { ...tailGuards, codeTyped }, actions: tailActions })
 * ```
 */
export const tailGuards = {
  /** The `signIn` callback let the sign-in go on (rather than redirect elsewhere). */
  signInAllowed: (_: unknown, params: { gate: GateResult }) => params.gate.allow,
}

/**
 * The shared actions: `fail` ends the flow with the error an effect threw (`onError: { target:
 * "failed", actions: "fail" }`).
 *
 * @example
 * ```ts
 * setup({ types: flowTypes(), actors: tailActors, guards: tailGuards, actions: tailActions })
 * ```
 */
export const tailActions = {
  fail: assign<AnyFlowContext, FlowEvent, undefined, FlowEvent, never>(({ event }) => ({
    output: { ok: false, error: (event as { error?: unknown }).error } satisfies FlowOutput,
  })),
}

// biome-ignore lint/suspicious/noExplicitAny: the tail serves every flow's context, whatever its pending data
type AnyFlowContext = FlowContext<any>

/**
 * The `types` of a flow machine's `setup()`: the shared context with your pending data, the request
 * event, the input and output the runtime uses, and the `awaiting-input` tag.
 *
 * @example
 * ```ts
 * import { setup } from "xstate"
 * import { flowTypes, tailActions, tailActors, tailGuards } from "authchart/flow"
 * const codeSetup = setup({ types: flowTypes<{ email: string }>(), actors: tailActors, guards: tailGuards, actions: tailActions })
 * ```
 */
export function flowTypes<TPending = null>() {
  return {
    context: {} as FlowContext<TPending>,
    events: {} as FlowEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
    tags: {} as typeof AWAITING_INPUT,
  }
}

/** The setup the sign-in tail's states are typed with. */
const tailSetup = setup({ types: flowTypes<AnyFlowContext["pending"]>(), actors: tailActors, guards: tailGuards, actions: tailActions })

/** The initial context of a flow. */
export function initialContext(input: FlowInput): FlowContext<never> {
  return { provider: input.provider, startedAt: input.now, identity: null, reply: null, output: null, pending: null, steps: {} }
}

/**
 * What every flow machine starts with: `idle` first (it must rest there: tag it `awaiting-input`), the
 * shared context, and the output it ends with.
 *
 * @example
 * ```ts
 * codeSetup.createMachine({ id: "email-code", ...flowBase, states: { idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "sending" } }, …, ...signInTail } })
 * ```
 */
export const flowBase = {
  initial: "idle" as const,
  context: ({ input }: { input: FlowInput }) => initialContext(input),
  output: ({ context }: { context: { output: FlowOutput | null } }): FlowOutput =>
    context.output ?? { ok: false, error: new Error("flow ended without output") },
}

/**
 * The sign-in tail's states with `afterLinking` as the state entered once the identity is linked: the
 * tail's one extension point. `signInTail` is it with `issuing` there; `extendFlow` builds it with its
 * first step there (its steps end in `issuing`), so no one edits the tail's transitions by hand.
 */
export function tailStates(afterLinking: string) {
  return {
    gate: tailSetup.createStateConfig({
      invoke: {
        id: "signInGate",
        src: "signInGate",
        input: ({ context }) => context.identity as Identity,
        onDone: [
          {
            guard: { type: "signInAllowed", params: ({ event }) => ({ gate: event.output }) },
            target: "linking",
            // the submitted credentials served the callback; they never rest in a snapshot
            actions: assign({ identity: ({ context }) => withoutCredentials(context.identity) }),
          },
          {
            target: "denied",
            actions: assign({
              output: ({ event }): FlowOutput => ({
                ok: true,
                reply: { type: "redirect", url: event.output.allow ? "" : event.output.redirect },
              }),
            }),
          },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    }),
    linking: tailSetup.createStateConfig({
      invoke: {
        id: "linkIdentity",
        src: "linkIdentity",
        input: ({ context }) => context.identity as Identity,
        onDone: { target: afterLinking, actions: assign({ identity: ({ event }) => event.output }) },
        onError: { target: "failed", actions: "fail" },
      },
    }),
    issuing: tailSetup.createStateConfig({
      invoke: {
        id: "issueSession",
        src: "issueSession",
        input: ({ context }) => context.identity as Identity,
        onDone: {
          target: "done",
          actions: assign({
            output: ({ event }): FlowOutput => ({
              ok: true,
              reply: { type: "redirect", url: event.output.redirect, cookies: event.output.cookies },
            }),
          }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    }),
    done: tailSetup.createStateConfig({ type: "final" }),
    denied: tailSetup.createStateConfig({ type: "final" }),
    failed: tailSetup.createStateConfig({ type: "final" }),
  }
}

/**
 * The tail every sign-in flow ends in, entered (`target: "gate"`) once `context.identity` is set:
 * `gate` (signIn callback) → `linking` (adapter users and accounts) → `issuing` (session, events,
 * redirect) → `done`; or `denied` (the callback redirected elsewhere) / `failed`. Spread it into your
 * machine's `states`; `extendFlow` inserts extra steps between `linking` and `issuing` (see {@link tailStates}).
 *
 * @example
 * ```ts
 * verifying: { invoke: { src: "verifyCode", input: …, onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output }) } } },
 * ...signInTail,
 * ```
 */
export const signInTail = tailStates("issuing")

/** Whether a machine's states end in the shared tail as declared (each tail state the very one `signInTail` holds). */
export function endsInSignInTail(states: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!states) return false
  return Object.entries(signInTail).every(([name, state]) => states[name] === state)
}

function withoutCredentials(identity: Identity | null): Identity | null {
  if (!identity?.credentials) return identity
  const { credentials: _, ...rest } = identity
  return rest
}
