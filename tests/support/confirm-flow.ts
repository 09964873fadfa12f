/**
 * A flow that rests between requests, written only with the public kit (`authchart/flow`) as an
 * application would: SUBMIT (password "pw") → rests in `confirm` → STEP (code 123456) → the shared
 * sign-in tail → session; a wrong code rests again, the third wrong one fails the flow. Options: `ttl`
 * (seconds), `extraState` (another deploy of the machine), `slow` (an effect that never finishes).
 */
import { assign, setup } from "xstate"
import {
  AWAITING_INPUT,
  declareEffect,
  defineFlow,
  effect,
  type FlowContext,
  type FlowDefinition,
  type FlowEvent,
  flowBase,
  flowTypes,
  type Identity,
  renderStepPage,
  signInTail,
  tailActions,
  tailActors,
  tailGuards,
} from "authchart/flow"

/** What the flow keeps while it waits for the code: the wrong tries so far. */
interface ConfirmPending {
  tries: number
}

const MAX_TRIES = 3

export function confirmMachine(extraState = false) {
  return setup({
    types: flowTypes<ConfirmPending>(),
    actors: { ...tailActors, authorize: declareEffect<Identity, { params: Record<string, unknown> }>("authorize") },
    guards: {
      ...tailGuards,
      codeMatches: ({ event }: { event: FlowEvent }) => event.params.code === "123456",
      lastTry: ({ context }: { context: FlowContext<ConfirmPending> }) => (context.pending?.tries ?? 0) >= MAX_TRIES - 1,
    },
    actions: tailActions,
  }).createMachine({
    id: "confirm",
    ...flowBase,
    states: {
      idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "authorizing" } },
      authorizing: {
        invoke: {
          id: "authorize",
          src: "authorize",
          input: ({ event }) => ({ params: event.params }),
          onDone: {
            target: "confirm",
            actions: assign({
              identity: ({ event }) => event.output,
              pending: { tries: 0 },
              reply: { type: "page", page: "confirm" },
            }),
          },
          onError: { target: "failed", actions: "fail" },
        },
      },
      confirm: {
        tags: [AWAITING_INPUT],
        on: {
          STEP: [
            { guard: "codeMatches", target: "gate", actions: assign({ pending: null, reply: null }) },
            {
              guard: "lastTry",
              target: "failed",
              actions: assign({ output: { ok: false, error: new Error("too many tries") } }),
            },
            {
              target: "confirm",
              reenter: true,
              actions: assign({ pending: ({ context }) => ({ tries: (context.pending?.tries ?? 0) + 1 }) }),
            },
          ],
        },
      },
      ...(extraState ? { extra: { type: "final" as const } } : {}),
      ...signInTail,
    },
  })
}

export function confirmFlow(options: { extraState?: boolean; ttl?: number; slow?: boolean } = {}): FlowDefinition {
  return defineFlow({
    id: "confirm",
    machine: confirmMachine(options.extraState),
    ttl: options.ttl ?? 900,
    routes: [
      { method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["password"] },
      { method: "POST", action: "callback", step: "confirm", event: "STEP", csrf: true, params: ["code"] },
    ],
    actors: {
      authorize: effect<Identity, { params: Record<string, unknown> }>(async (_ctx, input) => {
        if (options.slow) await new Promise(() => {})
        if (input.params.password !== "pw") throw new Error("bad")
        return { user: { id: "7", name: "Carol" }, account: { provider: "two-step", providerAccountId: "7", type: "credentials" } }
      }),
    },
    pages: {
      confirm: (props) => renderStepPage({ ...props, maxAttempts: MAX_TRIES }, { title: "Confirm", fields: "<p>type the code</p>" }),
    },
  })
}
